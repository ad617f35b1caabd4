import Foundation
import WotsCore
import WotsStorage

extension MailboxPipeline {
    /// What a staged append became.
    enum AppendStaging: Sendable {
        /// Staged; `announce` is the message to hand out now when it was numbered before its commit.
        case staged(PendingWrite<MailboxReceipt>, announce: MailboxMessage?)
        /// The same (sender, id) is staged already: its write, whose receipt this one shares.
        case duplicate(of: PendingWrite<MailboxReceipt>, sameEnvelope: Bool)
        case refused(WotsError)
    }

    enum Numbering: Sendable, Equatable {
        /// No transaction of this process committed yet (or the record was removed at a clean stop).
        case notRecorded
        case open(earlierProcessLeftNumbers: Bool)
    }

    /// The pipeline's bookkeeping, a value changed under one lock: what is staged, what is being written, and the
    /// counters of the recipients it numbers mail for. Every rule of the pipeline lives here.
    struct State: Sendable {
        var nextID: ItemID = 0
        /// Staged and not taken yet, in order.
        var queue: [ItemID] = []
        /// Staged or being written.
        var items: [ItemID: Staged] = [:]
        /// Appends staged or being written, by key.
        var appendsByKey: [MessageKey: ItemID] = [:]
        /// Appends numbered before their commit, staged or being written and not acknowledged, in sequence order.
        var earlyByRecipient: [Token: [ItemID]] = [:]
        /// Appends numbered before their commit and not written yet: at most `maximumEarly`.
        var earlyOutstanding = 0
        var counters: [Token: Counter] = [:]
        var isCommitting = false
        /// Whether this process recorded (`mailbox_numbering`) that it numbers messages before writing them.
        var numbering = Numbering.notRecorded

        /// When the oldest item staged and not taken yet was staged.
        var oldestStagedAt: ContinuousClock.Instant?
        /// Appends staged, not taken and `isAwaitingAcknowledgement`: what the writer's pause may still spare.
        var awaitedAcknowledgements = 0
        /// Whether the writer is pausing before its next batch (and must be woken when there is no more to wait for).
        var writerPauses = false
        /// Appends the last `take` left staged for their acknowledgement: they do not count towards a full batch.
        var leftByLastTake = 0
        /// Exclusive writes staged and not taken: while one is, a transaction leaves nothing staged before it.
        var exclusivesStaged = 0
        /// Which message keys may be written (`KeyFilterState`).
        var keys = KeyFilterState()

        /// Whether an append of `key` (of `hash`) must look for it in the database first: no write of it is staged
        /// and the key filter may hold it.
        func mustLookUp(_ key: MessageKey, _ hash: UInt64) -> Bool {
            self.appendsByKey[key] == nil && self.keys.mayBeWritten(hash)
        }

        private mutating func enqueue(_ id: ItemID) {
            if self.queue.isEmpty { self.oldestStagedAt = .now }
            self.queue.append(id)
        }

        /// How long the writer should wait before taking a batch: until the oldest staged item (or, when the last
        /// take left some, that take) is `delay` old while a message handed to a reader early waits unacknowledged
        /// (its acknowledgement may still spare writing it), and at once when a full batch is staged besides what the
        /// last take left, or nothing staged can be spared: an acknowledgement, a message nobody reads yet, or any
        /// other write gains nothing by waiting, and a recipient draining its mailbox or a sender waiting for its
        /// receipt waits for it.
        func wait(delay: Duration, fullBatch: Int) -> Duration {
            guard self.queue.count - self.leftByLastTake < fullBatch, self.awaitedAcknowledgements > 0,
                let oldest = self.oldestStagedAt
            else { return .zero }
            return max(.zero, delay - (ContinuousClock.now - oldest))
        }

        /// Whether the pausing writer must be woken now, because there is nothing more to wait for.
        mutating func wakesWriter(delay: Duration, fullBatch: Int) -> Bool {
            guard self.writerPauses, self.wait(delay: delay, fullBatch: fullBatch) == .zero else { return false }
            self.writerPauses = false
            return true
        }

        /// The early append with this key was handed to no reader after all: no acknowledgement is worth waiting for.
        mutating func handedToNobody(_ key: MessageKey) {
            guard let id = self.appendsByKey[key], case .append(var append) = self.items[id],
                append.isAwaitingAcknowledgement
            else { return }
            append.isAwaitingAcknowledgement = false
            self.items[id] = .append(append)
            if !append.isTaken, append.acknowledgedAt == nil { self.awaitedAcknowledgements -= 1 }
        }

        private mutating func makeID() -> ItemID {
            defer { self.nextID += 1 }
            return self.nextID
        }

        mutating func stageAppend(
            _ request: AppendRequest,
            announce: @escaping Announcement,
            maximumEarly: Int
        ) -> AppendStaging {
            let envelope = request.envelope
            if let id = self.appendsByKey[envelope.header.messageKey], case .append(let original) = self.items[id] {
                return .duplicate(of: original.write, sameEnvelope: original.request.envelope == envelope)
            }
            let recipient = envelope.header.recipient
            let id = self.makeID()
            var staged = StagedAppend(request: request, write: PendingWrite(), announce: announce)
            var counter = self.counters[recipient] ?? Counter(isValid: false, next: 0)
            if counter.isValid, self.earlyOutstanding < maximumEarly {
                guard counter.depth < request.mailboxCapacity else { return .refused(request.mailboxFull) }
                guard staged.size <= request.mailboxQuota - counter.bytes else { return .refused(request.overQuota) }
                staged.early = MailboxMessage(
                    sequence: counter.next,
                    receivedAt: Date(millisecondsSince1970: request.receivedAt.millisecondsSince1970),
                    envelope: envelope
                )
                counter.next += 1
                counter.depth += 1
                counter.bytes += staged.size
                self.earlyByRecipient[recipient, default: []].append(id)
                self.earlyOutstanding += 1
                // Until its announcement says otherwise (`handedToNobody`): the writer must not take it before then.
                staged.isAwaitingAcknowledgement = true
                self.awaitedAcknowledgements += 1
            } else {
                counter.invalidate()
                counter.databaseNumbered += 1
            }
            self.counters[recipient] = counter
            self.items[id] = .append(staged)
            self.appendsByKey[staged.key] = id
            self.enqueue(id)
            return .staged(staged.write, announce: staged.early)
        }

        /// Cancels the recipient's early appends not taken yet that these keys name, and stages the rest for the
        /// database.
        /// - Returns: the acknowledgement's write, and the receipts of the cancelled appends, to give outside the lock
        ///   at once: delivered and acknowledged, they need not wait for the commit that records them. When every key
        ///   cancelled an append, the acknowledgement is answered at once too: nothing of it is left to write (each
        ///   cancelled append is written as acknowledged by its own item).
        mutating func stageAcknowledgement(_ keys: [MessageKey], for recipient: Token, at now: Date)
            -> (PendingWrite<[MessageKey]>, [Settlement])
        {
            var seen = Set<MessageKey>()
            let unique = keys.filter { seen.insert($0).inserted }
            var cancelled = Set<MessageKey>()
            var receipts: [Settlement] = []
            for key in unique {
                guard let id = self.appendsByKey[key], case .append(var append) = self.items[id],
                    append.recipient == recipient, let early = append.early, !append.isTaken,
                    append.acknowledgedAt == nil
                else { continue }
                append.acknowledgedAt = now
                if append.isAwaitingAcknowledgement { self.awaitedAcknowledgements -= 1 }
                self.items[id] = .append(append)
                self.earlyByRecipient[recipient]?.removeAll { $0 == id }
                if var counter = self.counters[recipient], counter.isValid {
                    counter.depth -= 1
                    counter.bytes -= append.size
                    self.counters[recipient] = counter
                }
                cancelled.insert(key)
                let receipt = MailboxReceipt(sequence: early.sequence, receivedAt: early.receivedAt)
                receipts.append { [write = append.write] in write.settle(.success(receipt)) }
            }
            if cancelled.count == unique.count { return (.settled(.success(unique)), receipts) }
            let write = PendingWrite<[MessageKey]>()
            let id = self.makeID()
            self.items[id] = .acknowledgement(
                StagedAcknowledgement(keys: unique, recipient: recipient, now: now, cancelled: cancelled, write: write)
            )
            self.enqueue(id)
            return (write, receipts)
        }

        mutating func stageExclusive(_ exclusive: StagedExclusive) {
            for recipient in exclusive.recipients {
                var counter = self.counters[recipient] ?? Counter(isValid: false, next: 0)
                counter.invalidate()
                counter.databaseNumbered += 1
                self.counters[recipient] = counter
            }
            let id = self.makeID()
            self.items[id] = .exclusive(exclusive)
            self.exclusivesStaged += 1
            self.enqueue(id)
        }

        /// Takes up to `maximum` staged items, oldest first, for one transaction, with at most
        /// `maximumAcknowledged` keys to delete among them (unless the first item alone has more): a transaction's
        /// write-ahead log must still fit when the disk is nearly full and acknowledgements are what frees it.
        ///
        /// A message handed to a reader less than `wait` before `now` and not acknowledged is left staged, with every
        /// later append to its recipient (whose mail is written in the order it was numbered), so that each such
        /// message has the whole wait for its acknowledgement, however full the queue behind it; unless an exclusive
        /// write is staged, which must follow everything staged before it.
        mutating func take(
            maximum: Int,
            maximumAcknowledged: Int,
            leavingAwaitedWithin wait: Duration = .zero,
            at now: ContinuousClock.Instant = .now
        ) -> [(ItemID, Taken)] {
            let mayLeave = wait > .zero && self.exclusivesStaged == 0
            var ids: [ItemID] = []
            var left: [ItemID] = []
            var leftRecipients = Set<Token>()
            var acknowledged = 0
            var scanned = 0
            scan: for id in self.queue {
                guard ids.count < maximum else { break }
                switch self.items[id] {
                case .acknowledgement(let acknowledgement):
                    let keys = acknowledgement.keys.count - acknowledgement.cancelled.count
                    guard ids.isEmpty || acknowledged + keys <= maximumAcknowledged else { break scan }
                    acknowledged += keys
                case .append(let append)
                where mayLeave
                    && (leftRecipients.contains(append.recipient) || append.isAwaited(within: wait, at: now)):
                    left.append(id)
                    leftRecipients.insert(append.recipient)
                    scanned += 1
                    continue scan
                case .exclusive:
                    self.exclusivesStaged -= 1
                default:
                    break
                }
                ids.append(id)
                scanned += 1
            }
            self.queue = left + self.queue.dropFirst(scanned)
            self.leftByLastTake = left.count
            // What is left waits for the next transaction a whole `wait` from now: one transaction per wait under
            // load, not one for each message as it comes of age. A message left is then taken at most twice `wait`
            // after it was staged.
            self.oldestStagedAt = self.queue.isEmpty ? nil : now
            return ids.compactMap { id in
                switch self.items[id] {
                case .append(var append):
                    self.keys.taken(KeyPresenceFilter.hash(append.key))
                    append.isTaken = true
                    if append.isAwaitingAcknowledgement, append.acknowledgedAt == nil {
                        self.awaitedAcknowledgements -= 1
                    }
                    let counter = self.counters[append.recipient]
                    append.outsideChangesWhenTaken = counter?.outsideChanges ?? 0
                    self.items[id] = .append(append)
                    if let early = append.early {
                        return (id, .early(early, acknowledgedAt: append.acknowledgedAt))
                    }
                    return (
                        id,
                        .late(
                            append.request,
                            raiseTo: counter.flatMap { $0.needsRaise ? $0.next : nil },
                            reserve: counter?.isReserved != true
                        )
                    )
                case .acknowledgement(let acknowledgement):
                    let keys = acknowledgement.keys.filter { !acknowledgement.cancelled.contains($0) }
                    return (id, .acknowledgement(keys, recipient: acknowledgement.recipient, now: acknowledgement.now))
                case .exclusive(let exclusive):
                    for key in exclusive.keys { self.keys.taken(KeyPresenceFilter.hash(key)) }
                    var raises: [Token: Int64] = [:]
                    var reserves = Set<Token>()
                    for recipient in exclusive.recipients {
                        let counter = self.counters[recipient]
                        if let counter, counter.needsRaise { raises[recipient] = counter.next }
                        if counter?.isReserved != true { reserves.insert(recipient) }
                    }
                    return (id, .exclusive(exclusive, raises: raises, reserves: reserves))
                case nil:
                    return nil
                }
            }
        }

        /// The recipient's early appends above `sequence`, in sequence order, leaving out those expired by `now`.
        func pendingMessages(for recipient: Token, after sequence: Int64, at now: Date) -> [MailboxMessage] {
            (self.earlyByRecipient[recipient] ?? []).compactMap { id in
                guard case .append(let append) = self.items[id], let message = append.early,
                    message.sequence > sequence, !message.envelope.hasExpired(at: now)
                else { return nil }
                return message
            }
        }

        /// Forgets what the counters say of these recipients' mail (changed outside the pipeline): the database
        /// numbers their next message.
        mutating func invalidate(_ recipients: some Sequence<Token>) {
            for recipient in recipients where self.counters[recipient] != nil {
                self.counters[recipient]?.invalidate()
                self.counters[recipient]?.outsideChanges += 1
            }
        }
    }
}

extension AppendRequest {
    var mailboxFull: WotsError {
        WotsError(
            .mailboxFull,
            "the mailbox of \(self.envelope.header.recipient) holds \(self.mailboxCapacity) messages already"
        )
    }

    var overQuota: WotsError {
        .quotaExceeded(
            recipient: self.envelope.header.recipient,
            envelopeSize: self.envelope.serializedSize,
            quota: self.mailboxQuota
        )
    }
}
