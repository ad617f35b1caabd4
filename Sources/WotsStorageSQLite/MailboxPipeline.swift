import Foundation
import GRDB
import Logging
import Synchronization
import WotsCore
import WotsStorage

/// Every mailbox write of one SQLite database goes through here, in the order it was staged, many to a transaction
/// (group commit: one fsync for all that arrived while the previous transaction was being written).
///
/// A recipient whose counter the pipeline knows gets its messages **numbered when they are staged**, before their
/// commit: readers see them at once (so a recipient online is handed a message while it is still being written),
/// and a message its recipient acknowledges before it was taken into a transaction is never written as waiting, only
/// remembered as acknowledged so that a retried send gets its first receipt; its sender gets that receipt at the
/// acknowledgement, without waiting for the commit. A recipient the pipeline does not know,
/// or whose counter something outside it changed, has its next message numbered by the database inside the
/// transaction, which makes the counter known again.
///
/// Numbers handed out before a commit can be lost with the process. So that no number is ever given to a second
/// message, the first write in a process that numbers a recipient's mail from the database skips
/// `reservedNumbers`, more than the pipeline ever has outstanding; after a failed commit every counter is read from the
/// database again, never below the numbers handed out.
final class MailboxPipeline: Sendable {
    /// Most messages numbered and not yet written; past it, appends wait for the database to number them.
    static let maximumEarly = 8_192
    /// Numbers skipped at a recipient's first database-numbered write in a process: more than `maximumEarly`.
    static let reservedNumbers: Int64 = 16_384
    /// Most items one transaction writes.
    static let maximumBatch = 512
    /// Most acknowledged messages one transaction deletes while the disk has `roomAboveReserve` beyond the reserve.
    static let maximumAcknowledgedWithRoom = 2_000
    static let roomAboveReserve: Int64 = 256 << 20
    /// How long a message handed to its reader stays staged for its acknowledgement: a transaction waits, from its
    /// oldest item, while such a message is staged (unless a full batch is), and leaves out those handed over more
    /// recently (`State.take`). A message acknowledged meanwhile is not written as waiting at all, which spares its
    /// insert, its delete and their pages, and what arrives meanwhile shares the commit and its fsync. Delivery does
    /// not wait for it; only the receipt of a message not acknowledged meanwhile does, up to about twice this.
    let acknowledgementWait: Duration

    unowned let database: SQLiteDatabase
    private let state = Mutex(State())
    private let writer = DispatchQueue(label: "wots.sqlite.mailbox-writer")
    /// Signalled when the writer pauses (`State.writerPauses`) and a write that need not wait finds nothing else
    /// worth waiting for, or a full batch.
    private let writerWakeUp = DispatchSemaphore(value: 0)
    /// Answers to callers, batch after batch, given in the task pool by one task (`answer`) so that the writer goes
    /// on at once and the answers keep the order of the commits.
    private let answers = AsyncStream.makeStream(of: [State.Settlement].self)
    private let isAnswering = Mutex(false)
    /// The last scan of the message keys (`KeyFilterState`).
    private let keyScan = Mutex<Task<Void, Never>?>(nil)

    init(database: SQLiteDatabase) {
        self.database = database
        self.acknowledgementWait = database.configuration.acknowledgementWait
        // Made at the database's first mailbox use, before anything it writes: the key scan may start at once.
        if self.state.withLock({ $0.keys.startsScan(at: .now) }) { self.scanKeys(in: database) }
    }

    /// Stages an append checked against what is written already (`heldReceipt` found nothing).
    func stageAppend(_ request: AppendRequest, announce: @escaping Announcement)
        -> PendingWrite<MailboxReceipt>
    {
        let staged = self.state.withLock { self.stage(request, announce: announce, in: &$0) }
        return self.finish(staged, of: request, announce: announce)
    }

    /// What staging an append decided while it held the state.
    private typealias AppendStaged = (staging: AppendStaging, startsCommitting: Bool, wakesWriter: Bool)

    private func stage(_ request: AppendRequest, announce: @escaping Announcement, in state: inout State)
        -> AppendStaged
    {
        let staging = state.stageAppend(request, announce: announce, maximumEarly: Self.maximumEarly)
        return (staging, Self.startCommitting(&state), self.wakesWriter(&state))
    }

    private func finish(_ staged: AppendStaged, of request: AppendRequest, announce: Announcement)
        -> PendingWrite<MailboxReceipt>
    {
        var wakesWriterNow = staged.wakesWriter
        if case .staged(_, let early?) = staged.staging, !announce(early) {
            wakesWriterNow = self.state.withLock { state in
                state.handedToNobody(early.envelope.header.messageKey)
                return self.wakesWriter(&state) || staged.wakesWriter
            }
        }
        // Only now, so that a writer this starts knows whether the message was handed to a reader.
        if staged.startsCommitting { self.commitInBackground() }
        if wakesWriterNow { self.writerWakeUp.signal() }
        switch staged.staging {
        case .staged(let write, _):
            return write
        case .duplicate(let original, let sameEnvelope):
            guard sameEnvelope else { return .settled(.failure(request.idConflict)) }
            return original.map { receipt in
                var again = receipt
                again.isNew = false
                return again
            }
        case .refused(let error):
            return .settled(.failure(error))
        }
    }

    /// Whether an append of this key must look for it in the database first: false when a write of it is staged
    /// (`stageAppend` finds that one) or when the key filter knows it was never written.
    func mustLookUp(_ key: MessageKey) -> Bool {
        let hash = KeyPresenceFilter.hash(key)
        return self.state.withLock { state in
            let mustLookUp = state.mustLookUp(key, hash)
            if mustLookUp {
                state.keys.lookupsMade += 1
            } else {
                state.keys.lookupsSpared += 1
            }
            return mustLookUp
        }
    }

    /// `stageAppend` when the key need not be looked for in the database first (`mustLookUp` false); nil, with
    /// nothing staged or counted as a lookup, when it must.
    func stageAppendUnlessLookUp(_ request: AppendRequest, announce: @escaping Announcement)
        -> PendingWrite<MailboxReceipt>?
    {
        let key = request.envelope.header.messageKey
        let hash = KeyPresenceFilter.hash(key)
        // One hold of the state for the check and the staging: each hold is contended by the other event loop.
        let staged = self.state.withLock { state -> AppendStaged? in
            guard !state.mustLookUp(key, hash) else { return nil }
            state.keys.lookupsSpared += 1
            return self.stage(request, announce: announce, in: &state)
        }
        return staged.map { self.finish($0, of: request, announce: announce) }
    }

    /// What the key filter holds and spared (`MailboxStatistics.keyFilter`).
    var keyFilterStatistics: MessageKeyFilterStatistics { self.state.withLock { $0.keys.statistics } }

    func stageAcknowledgement(_ keys: [MessageKey], for recipient: Token, at now: Date) -> PendingWrite<[MessageKey]> {
        // A pausing writer is not woken: what it gathers meanwhile shares the transaction's fsync.
        let ((write, receipts), startsCommitting) = self.state.withLock { state in
            (state.stageAcknowledgement(keys, for: recipient, at: now), Self.startCommitting(&state))
        }
        if startsCommitting { self.commitInBackground() }
        for settle in receipts { settle() }
        return write
    }

    /// Stages a write that numbers mail of `recipients` itself (or changes it in ways the counters cannot follow):
    /// it runs in order with the rest, in a savepoint of the batch's transaction, so a refusal it throws as a
    /// `WotsError` undoes only its own changes.
    /// `keys`: the messages it may write, which the key filter must then hold.
    func stageExclusive<Value: Sendable>(
        recipients: Set<Token>,
        keys: [MessageKey] = [],
        _ body: @escaping @Sendable (Database) throws -> Value
    ) -> PendingWrite<Value> {
        let write = PendingWrite<Value>()
        let exclusive = StagedExclusive(
            recipients: recipients,
            keys: keys,
            perform: { db in
                var outcome: Result<Value, any Error> = .failure(CancellationError())
                do {
                    try db.inSavepoint {
                        outcome = .success(try body(db))
                        return .commit
                    }
                } catch let refusal as WotsError {
                    outcome = .failure(refusal)
                }
                return { [outcome] in write.settle(outcome) }
            },
            fail: { write.settle(.failure($0)) }
        )
        let startsCommitting = self.state.withLock { state in
            state.stageExclusive(exclusive)
            return Self.startCommitting(&state)
        }
        if startsCommitting { self.commitInBackground() }
        return write
    }

    /// The recipient's messages numbered and not written yet, above `sequence`, in order.
    func pendingMessages(for recipient: Token, after sequence: Int64, at now: Date) -> [MailboxMessage] {
        self.state.withLock { $0.pendingMessages(for: recipient, after: sequence, at: now) }
    }

    /// These recipients' mail changed outside the pipeline (a deletion): their counters are read again.
    func invalidate(_ recipients: some Sequence<Token> & Sendable) {
        self.state.withLock { $0.invalidate(recipients) }
    }

    private func wakesWriter(_ state: inout State) -> Bool {
        state.wakesWriter(delay: self.acknowledgementWait, fullBatch: Self.maximumBatch)
    }

    private static func startCommitting(_ state: inout State) -> Bool {
        guard !state.isCommitting, !state.queue.isEmpty else { return false }
        state.isCommitting = true
        return true
    }

    private func commitInBackground() {
        // On a thread of its own, not in the task pool: under load the pool's threads are busy with sockets, and
        // every hop of a transaction through them (start, the writer's answer, the answers to its callers) would wait
        // behind that work while nothing else can commit. The loop holds the database (the pipeline does not: the
        // database holds it), so what was staged is committed even if every other holder let the database go.
        let database = self.database
        self.writer.async { self.commitWhileStaged(in: database) }
    }

    private func commitWhileStaged(in database: SQLiteDatabase) {
        while true {
            let (pause, startsScan) = self.state.withLock { state in
                let pause = state.wait(delay: self.acknowledgementWait, fullBatch: Self.maximumBatch)
                state.writerPauses = pause > .zero
                return (pause, state.keys.startsScan(at: .now))
            }
            if startsScan { self.scanKeys(in: database) }
            if pause > .zero {
                _ = self.writerWakeUp.wait(timeout: .now() + pause.seconds)
                continue
            }
            let acknowledgementLimit = Self.acknowledgementLimit(in: database)
            let taken = self.state.withLock { state -> ([(ItemID, Taken)], Numbering)? in
                guard !state.queue.isEmpty else {
                    state.isCommitting = false
                    return nil
                }
                return (
                    state.take(
                        maximum: Self.maximumBatch,
                        maximumAcknowledged: acknowledgementLimit,
                        leavingAwaitedWithin: self.acknowledgementWait
                    ),
                    state.numbering
                )
            }
            guard let (batch, numbering) = taken else { return }
            // Everything staged was left for its acknowledgement: the pause until the oldest is due comes next.
            if batch.isEmpty { continue }
            let settlements: [State.Settlement]
            let deadline = self.failAtDeadline(batch, after: database.configuration.operationTimeout)
            defer { deadline.cancel() }
            do {
                let results = try database.writeNow("write \(batch.count) mailbox changes") { db in
                    var writer = BatchWriter(
                        db: db,
                        reservedNumbers: Self.reservedNumbers,
                        earlierProcessLeftNumbers: numbering.earlierProcessLeftNumbers,
                        marksNumberingOpen: numbering == .notRecorded
                    )
                    return try writer.write(batch)
                }
                settlements = self.state.withLock { $0.committed(batch, results) }
            } catch {
                settlements = self.state.withLock { $0.failed(batch, with: error) }
            }
            self.answer(settlements)
        }
    }

    /// Reads every message key in a reader of its own, away from the writer, and gives the pipeline the filter of
    /// them. Straight from the pool: not bound by the operation timeout (a large database takes seconds) and not
    /// counted in the database's health (nothing waits for it; until it ends, every new key is looked for).
    private func scanKeys(in database: SQLiteDatabase) {
        let task = Task {
            let started = ContinuousClock.now
            do {
                let scanned = try await database.pool.read { db in
                    let scanned = try KeyFilterState.scan(db)
                    database.configuration.keyScanHasRead?()
                    return scanned
                }
                database.logger.info(
                    "read \(scanned.count) message keys for the key filter in \(ContinuousClock.now - started)"
                )
                self.state.withLock { $0.keys.install(scanned) }
            } catch {
                database.logger.warning("could not read the message keys for the key filter: \(error)")
                self.state.withLock { $0.keys.scanFailed(at: .now) }
            }
        }
        self.keyScan.withLock { $0 = task }
    }

    /// Returns once the last scan of the message keys has ended (for tests).
    func keyScanEnded() async { await self.keyScan.withLock { $0 }?.value }

    /// Whether a key filter is in use (for tests).
    var hasKeyFilter: Bool { self.state.withLock { $0.keys.filter != nil } }

    /// Most acknowledged messages the next transaction deletes: few near the free-space reserve, where the write-ahead
    /// log of a big deletion must still fit on the disk; many elsewhere, so a mailbox drains with fewer fsyncs.
    private static func acknowledgementLimit(in database: SQLiteDatabase) -> Int {
        let roomy = database.configuration.minimumFreeSpace + Self.roomAboveReserve
        guard let free = database.space.freeBytes(freshBelow: roomy), free >= roomy else {
            return SQLiteMailboxRepository.acknowledgementsPerTransaction
        }
        return Self.maximumAcknowledgedWithRoom
    }

    private func answer(_ settlements: [State.Settlement]) {
        guard !settlements.isEmpty else { return }
        self.answers.continuation.yield(settlements)
        let starts = self.isAnswering.withLock { isAnswering in
            defer { isAnswering = true }
            return !isAnswering
        }
        guard starts else { return }
        // Lives as long as the pipeline, which lives as long as its database: one task for every answer ever given.
        Task { [answers = self.answers.stream] in
            for await settlements in answers {
                for settle in settlements { settle() }
            }
        }
    }

    /// Refuses the batch's writes with `storage_unavailable` if its transaction has not ended within the operation
    /// timeout, so callers are never held by a database that stopped answering; a transaction that commits later
    /// finds them answered already, and since a failure makes every counter be read from the database again, what
    /// it wrote is counted.
    private func failAtDeadline(_ batch: [(ItemID, Taken)], after timeout: Duration) -> DispatchWorkItem {
        let item = DispatchWorkItem { [self] in
            let error = WotsError(
                .storageUnavailable,
                "the database did not write \(batch.count) mailbox changes within \(timeout)"
            )
            self.answer(self.state.withLock { $0.failed(batch, with: error) })
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds, execute: item)
        return item
    }

    /// At a clean stop, once nothing is staged or being written: removes this process's `mailbox_numbering` record,
    /// so the next process numbers on from where this one stopped. Every counter is read from the database again
    /// afterwards, so nothing is numbered early before the record is written anew.
    /// - Returns: false when something is still staged or being written (the record stays).
    func recordCleanStop(_ write: (String) throws -> Void) rethrows -> Bool {
        try self.state.withLock { state in
            guard !state.isCommitting, state.queue.isEmpty, state.items.isEmpty else { return false }
            guard case .open = state.numbering else { return true }
            try write("DELETE FROM mailbox_numbering")
            state.numbering = .notRecorded
            state.invalidate(Array(state.counters.keys))
            return true
        }
    }

    /// Whether the append with this key was taken into a transaction (too late to cancel); false when not staged.
    func isTaken(_ key: MessageKey) -> Bool {
        self.state.withLock { state in
            guard let id = state.appendsByKey[key], case .append(let append) = state.items[id] else { return false }
            return append.isTaken
        }
    }

    /// Whether nothing is staged or being written.
    var isIdle: Bool { self.state.withLock { !$0.isCommitting && $0.items.isEmpty } }
}

extension MailboxPipeline.Numbering {
    /// What the first transaction found, once known.
    var earlierProcessLeftNumbers: Bool? {
        switch self {
        case .notRecorded: nil
        case .open(let left): left
        }
    }
}

extension AppendRequest {
    var idConflict: WotsError {
        WotsError(
            .messageIDConflict,
            "message id \(self.envelope.header.messageID.lowercasedString) was used by this sender for a different "
                + "envelope"
        )
    }
}
