import Foundation
import WotsCore
import WotsStorage

extension MailboxPipeline {
    /// A counter row as a transaction left it.
    struct CounterRow: Sendable {
        var next: Int64
        var depth: Int
        var bytes: Int
    }

    /// What one transaction found, by item.
    struct BatchResults: Sendable {
        struct Late: Sendable {
            var result: Result<MailboxReceipt, WotsError>
            var counter: CounterRow
        }

        struct Deleted: Sendable {
            var keys: Set<MessageKey> = []
            var bytes = 0
        }

        /// Whether the process before this one stopped with numbers it may have handed out unwritten.
        var earlierProcessLeftNumbers: Bool
        var late: [ItemID: Late] = [:]
        var acknowledged: [ItemID: Deleted] = [:]
        var exclusive: [ItemID: @Sendable () -> Void] = [:]
    }
}

extension MailboxPipeline.State {
    typealias ItemID = MailboxPipeline.ItemID
    typealias Settlement = @Sendable () -> Void

    /// The batch committed: answers its items and brings the counters up to date.
    /// - Returns: the answers, to give outside the lock.
    mutating func committed(
        _ batch: [(ItemID, MailboxPipeline.Taken)],
        _ results: MailboxPipeline.BatchResults
    ) -> [Settlement] {
        var settlements: [Settlement] = []
        self.numbering = .open(earlierProcessLeftNumbers: results.earlierProcessLeftNumbers)
        for (id, _) in batch {
            switch self.items.removeValue(forKey: id) {
            case .append(let append):
                self.appendsByKey[append.key] = nil
                if let early = append.early {
                    self.forgetEarly(id, of: append.recipient)
                    let receipt = MailboxReceipt(sequence: early.sequence, receivedAt: early.receivedAt)
                    settlements.append { append.write.settle(.success(receipt)) }
                } else if let late = results.late[id] {
                    let unchanged = self.counters[append.recipient]?.outsideChanges == append.outsideChangesWhenTaken
                    self.numberedByDatabase(append.recipient, leaving: unchanged ? late.counter : nil)
                    // Handed out before its sender hears the receipt, as a message numbered early is: whoever
                    // sees the receipt finds the message announced.
                    settlements.append {
                        if case .success(let receipt) = late.result, receipt.isNew {
                            _ = append.announce(
                                MailboxMessage(
                                    sequence: receipt.sequence,
                                    receivedAt: receipt.receivedAt,
                                    envelope: append.request.envelope
                                )
                            )
                        }
                        append.write.settle(late.result.mapError { $0 })
                    }
                }
            case .acknowledgement(let acknowledgement):
                let deleted = results.acknowledged[id] ?? .init()
                if var counter = self.counters[acknowledgement.recipient], counter.isValid {
                    counter.depth -= deleted.keys.count
                    counter.bytes -= deleted.bytes
                    self.counters[acknowledgement.recipient] = counter
                }
                let answered = acknowledgement.keys.filter {
                    deleted.keys.contains($0) || acknowledgement.cancelled.contains($0)
                }
                settlements.append { acknowledgement.write.settle(.success(answered)) }
            case .exclusive(let exclusive):
                for recipient in exclusive.recipients { self.numberedByDatabase(recipient, leaving: nil) }
                if let settle = results.exclusive[id] { settlements.append(settle) }
            case nil:
                continue
            }
        }
        return settlements
    }

    /// The batch failed, wholly: its items are refused, and since a failed or abandoned commit may or may not have
    /// been written, no counter is trusted again before the database numbered a message for its recipient, and never
    /// below a number handed out already.
    mutating func failed(_ batch: [(ItemID, MailboxPipeline.Taken)], with error: any Error) -> [Settlement] {
        var settlements: [Settlement] = []
        for (id, _) in batch {
            switch self.items.removeValue(forKey: id) {
            case .append(let append):
                self.appendsByKey[append.key] = nil
                if append.early != nil {
                    // One answered at its acknowledgement keeps that receipt (only the first settle counts): only the
                    // record of its acknowledgement is lost.
                    self.forgetEarly(id, of: append.recipient)
                } else {
                    self.counters[append.recipient]?.databaseNumbered -= 1
                }
                settlements.append { append.write.settle(.failure(error)) }
            case .acknowledgement(let acknowledgement):
                settlements.append { acknowledgement.write.settle(.failure(error)) }
            case .exclusive(let exclusive):
                for recipient in exclusive.recipients { self.counters[recipient]?.databaseNumbered -= 1 }
                settlements.append { exclusive.fail(error) }
            case nil:
                continue
            }
        }
        for recipient in self.counters.keys {
            self.counters[recipient]?.invalidate()
            self.counters[recipient]?.needsRaise = true
        }
        return settlements
    }

    private mutating func forgetEarly(_ id: ItemID, of recipient: Token) {
        self.earlyOutstanding -= 1
        guard var early = self.earlyByRecipient[recipient] else { return }
        if early.first == id { early.removeFirst() } else { early.removeAll { $0 == id } }
        self.earlyByRecipient[recipient] = early.isEmpty ? nil : early
    }

    /// A write that numbered the recipient's mail from the database committed; `row` is the counter as it left it
    /// (nil when unknown). The last such write of those staged makes the counter valid again.
    private mutating func numberedByDatabase(_ recipient: Token, leaving row: MailboxPipeline.CounterRow?) {
        var counter = self.counters[recipient] ?? MailboxPipeline.Counter(isValid: false, next: 0)
        counter.databaseNumbered -= 1
        counter.isReserved = true
        counter.needsRaise = false
        if let row {
            counter.next = max(counter.next, row.next)
            if counter.databaseNumbered == 0 {
                counter.isValid = true
                counter.depth = row.depth
                counter.bytes = row.bytes
            }
        }
        self.counters[recipient] = counter
    }
}
