import Foundation
import GRDB
import Synchronization
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// A message its recipient acknowledges while it waits for its commit (SQLite numbers and announces it before the
/// commit): never written as waiting, never lost to its sender, never handed out twice.
@Suite struct EarlyAcknowledgementTests {
    /// Holds SQLite's one writer until `release()`, so that what is staged meanwhile waits for the next transaction.
    final class WriterHold: Sendable {
        private let released = DispatchSemaphore(value: 0)
        private let task: Task<Void, any Error>

        init(_ database: SQLiteDatabase) async {
            let entered = Signal()
            let released = self.released
            self.task = Task {
                try await database.pool.writeWithoutTransaction { _ in
                    entered.fire(); released.wait()
                }
            }
            await entered.wait()
        }

        func release() async throws {
            self.released.signal()
            try await self.task.value
        }
    }

    /// Every announcement, in order.
    final class Announcements: Sendable {
        private let messages = Mutex<[MailboxMessage]>([])
        var all: [MailboxMessage] { self.messages.withLock { $0 } }
        /// Records `message` as handed to a reader, which will acknowledge it.
        func record(_ message: MailboxMessage) -> Bool {
            self.messages.withLock { $0.append(message) }
            return true
        }
    }

    private func ids(_ envelopes: Envelope...) -> [UUID] { envelopes.map(\.header.messageID) }

    private func withMailboxes(_ body: (SQLiteDatabase, SQLiteMailboxRepository) async throws -> Void) async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("relay.sqlite").path)
        try await body(database, SQLiteMailboxRepository(database: database))
        try database.close()
    }

    private func enqueue(
        _ envelope: Envelope,
        in mailboxes: SQLiteMailboxRepository,
        announcements: Announcements
    ) async throws -> PendingWrite<MailboxReceipt> {
        try await mailboxes.stage(envelope, announce: { announcements.record($0) })
    }

    @Test func aMessageAcknowledgedBeforeItsCommitIsRememberedNotStoredAndNeverHandedOutAgain() async throws {
        try await withMailboxes { database, mailboxes in
            let bob = TestValues.token()
            let announcements = Announcements()
            // The first message makes bob's counter known; those after it are numbered as they are taken.
            let first = try await self.enqueue(
                TestValues.envelope(from: TestValues.token(), to: bob),
                in: mailboxes,
                announcements: announcements
            ).outcome()

            let hold = await WriterHold(database)
            let taken = TestValues.envelope(from: TestValues.token(), to: bob)
            let takenWrite = try await self.enqueue(taken, in: mailboxes, announcements: announcements)
            // The transaction holding `taken` waits for the writer; what is staged now waits behind it.
            while !mailboxes.pipeline.isTaken(taken.header.messageKey) { await Task.yield() }
            let acknowledged = TestValues.envelope(from: TestValues.token(), to: bob)
            let acknowledgedWrite = try await self.enqueue(acknowledged, in: mailboxes, announcements: announcements)
            let kept = TestValues.envelope(from: TestValues.token(), to: bob)
            let keptWrite = try await self.enqueue(kept, in: mailboxes, announcements: announcements)
            #expect(
                announcements.all.dropFirst().map(\.envelope.header.messageID) == ids(taken, acknowledged, kept),
                "announced before the commit"
            )
            #expect(
                try await mailboxes.messages(for: bob, after: first.sequence, limit: 10).map(
                    \.envelope.header.messageID
                )
                    == ids(taken, acknowledged, kept),
                "readers see numbered messages before their commit"
            )
            let acknowledgement = try await mailboxes.enqueueAcknowledge(
                [acknowledged.header.messageKey],
                for: bob,
                at: TestValues.time()
            )
            #expect(
                try await mailboxes.messages(for: bob, after: first.sequence, limit: 10).map(
                    \.envelope.header.messageID
                )
                    == ids(taken, kept)
            )
            #expect(acknowledgedWrite.isSettled, "delivered and acknowledged: answered before its commit")
            #expect(!takenWrite.isSettled && !keptWrite.isSettled, "the others wait for their commit")
            let retriedBeforeCommit = try await self.enqueue(acknowledged, in: mailboxes, announcements: announcements)
            #expect(retriedBeforeCommit.isSettled, "a retry shares the first receipt, before the commit too")
            try await hold.release()

            let receipts = [
                try await takenWrite.outcome(), try await acknowledgedWrite.outcome(), try await keptWrite.outcome(),
            ]
            #expect(receipts.map(\.sequence) == [first.sequence + 1, first.sequence + 2, first.sequence + 3])
            #expect(try await acknowledgement.outcome() == [acknowledged.header.messageKey])
            #expect(try await mailboxes.messages(for: bob, after: 0, limit: 10).count == 3)
            #expect(try await mailboxes.depth(of: bob) == 3)
            let waiting = try await database.read("count") { db in
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM mailbox_messages WHERE message_id = ?",
                    arguments: [acknowledged.header.messageID.databaseBytes]
                )
            }
            #expect(waiting == 0, "an acknowledged message is never written as waiting")

            let retried = try await self.enqueue(acknowledged, in: mailboxes, announcements: announcements).outcome()
            #expect(retried == receipts[1] && !retried.isNew, "a retried send gets its first receipt")
            #expect(try await retriedBeforeCommit.outcome() == retried)
            #expect(announcements.all.count == 4, "and is handed to nobody again")
            let next = try await mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: bob),
                receivedAt: TestValues.time(),
                mailboxCapacity: 100
            )
            #expect(next.sequence == first.sequence + 4, "the acknowledged message's number is not given again")
        }
    }

    @Test func anAcknowledgementOfAMessageAlreadyBeingWrittenDeletesItAfterItsCommit() async throws {
        try await withMailboxes { database, mailboxes in
            let bob = TestValues.token()
            let announcements = Announcements()
            _ = try await mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: bob),
                receivedAt: TestValues.time(),
                mailboxCapacity: 100
            )
            let hold = await WriterHold(database)
            let taken = TestValues.envelope(from: TestValues.token(), to: bob)
            let write = try await self.enqueue(taken, in: mailboxes, announcements: announcements)
            while !mailboxes.pipeline.isTaken(taken.header.messageKey) { await Task.yield() }
            let acknowledgement = try await mailboxes.enqueueAcknowledge(
                [taken.header.messageKey],
                for: bob,
                at: TestValues.time()
            )
            try await hold.release()
            _ = try await write.outcome()
            #expect(try await acknowledgement.outcome() == [taken.header.messageKey])
            let waiting = try await mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope.header.messageID)
            #expect(!waiting.contains(taken.header.messageID))
            #expect(try await mailboxes.depth(of: bob) == 1)
        }
    }

    @Test func aProcessThatStoppedWithoutClosingNeverHasItsNumbersGivenAgain() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("relay.sqlite").path
        let bob = TestValues.token()
        let announcements = Announcements()

        let crashed = try await SQLiteDatabase(path: path)
        let before = SQLiteMailboxRepository(database: crashed)
        _ = try await before.append(
            TestValues.envelope(from: TestValues.token(), to: bob),
            receivedAt: TestValues.time(),
            mailboxCapacity: 100
        )
        let hold = await WriterHold(crashed)
        var handedOut: [Int64] = []
        for _ in 0..<3 {
            _ = try await self.enqueue(
                TestValues.envelope(from: TestValues.token(), to: bob),
                in: before,
                announcements: announcements
            )
        }
        handedOut = announcements.all.map(\.sequence)
        #expect(handedOut.count == 3, "numbered and handed out before any commit")
        // The process dies here: its staged messages are never written, and it never closes the database.

        let restarted = try await SQLiteDatabase(path: path)
        let after = try await SQLiteMailboxRepository(database: restarted).append(
            TestValues.envelope(from: TestValues.token(), to: bob),
            receivedAt: TestValues.time(),
            mailboxCapacity: 100
        )
        #expect(after.sequence > handedOut.max() ?? 0)
        try restarted.close()
        try await hold.release()
        // The first process's objects outlive what it had staged, as a process's do until it dies.
        while !crashed.mailboxPipeline.isIdle { await Task.yield() }
    }
}

extension EarlyAcknowledgementTests {
    /// Sends look a retry up on the calling thread while mailbox reads hold the pool's readers across awaits: the
    /// lookups must never wait for a reader, or every thread of the task pool can end up waiting for itself.
    @Test(.timeLimit(.minutes(1)))
    func manyConcurrentSendsAndReadsAllFinish() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A deadlock never ends; a loaded test process can take seconds to resume a read, so only the time limit
        // judges.
        var configuration = SQLiteDatabase.Configuration()
        configuration.operationTimeout = .seconds(50)
        let database = try await SQLiteDatabase(
            path: folder.appendingPathComponent("relay.sqlite").path,
            configuration: configuration
        )
        let mailboxes = SQLiteMailboxRepository(database: database)
        let recipients = (0..<8).map { _ in TestValues.token() }
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                let recipient = recipients[index % recipients.count]
                group.addTask {
                    _ = try await mailboxes.messages(for: recipient, after: 0, limit: 100)
                    _ = try await mailboxes.append(
                        TestValues.envelope(from: TestValues.token(), to: recipient),
                        receivedAt: TestValues.time(),
                        mailboxCapacity: 1_000
                    )
                    return 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sent == 100)
        var stored = 0
        for recipient in recipients { stored += try await mailboxes.depth(of: recipient) }
        #expect(stored == 100)
        try database.close()
    }
}

extension EarlyAcknowledgementTests {
    @Test func aWriteTheDatabaseDoesNotTakeWithinTheTimeoutFailsAndLaterWritesLand() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = SQLiteDatabase.Configuration()
        configuration.operationTimeout = .milliseconds(300)
        let database = try await SQLiteDatabase(
            path: folder.appendingPathComponent("relay.sqlite").path,
            configuration: configuration
        )
        let mailboxes = SQLiteMailboxRepository(database: database)
        let bob = TestValues.token()
        let hold = await WriterHold(database)
        let stuck = TestValues.envelope(from: TestValues.token(), to: bob)
        await #expect(throws: WotsError(.storageUnavailable, "")) {
            try await mailboxes.append(stuck, receivedAt: TestValues.time(), mailboxCapacity: 10)
        }
        try await hold.release()
        let later = try await mailboxes.append(
            TestValues.envelope(from: TestValues.token(), to: bob),
            receivedAt: TestValues.time(),
            mailboxCapacity: 10
        )
        let retried = try await mailboxes.append(stuck, receivedAt: TestValues.time(), mailboxCapacity: 10)
        #expect(retried.sequence != later.sequence, "the write that timed out may land late, never on a used number")
        #expect(try await mailboxes.depth(of: bob) == 2)
        try database.close()
    }
}

extension EarlyAcknowledgementTests {
    /// A receipt given at the acknowledgement stands when the transaction that was to record the acknowledgement
    /// fails: the recipient has the message; what is lost is only the relay's record that it was acknowledged.
    @Test func aReceiptGivenAtTheAcknowledgementStandsWhenItsTransactionFails() throws {
        var state = MailboxPipeline.State()
        let bob = TestValues.token()
        state.counters[bob] = MailboxPipeline.Counter(isValid: true, next: 1)
        let envelope = TestValues.envelope(from: TestValues.token(), to: bob)
        guard case .staged(let write, let early?) = state.stageForTest(envelope) else {
            Issue.record("a known counter numbers the message when it is staged")
            return
        }
        let (acknowledgement, receipts) = state.stageAcknowledgement(
            [envelope.header.messageKey],
            for: bob,
            at: TestValues.time()
        )
        #expect(!write.isSettled, "answered by the caller, outside the lock")
        #expect(try acknowledgement.settledValue() == [envelope.header.messageKey])
        for settle in receipts { settle() }
        let expected = MailboxReceipt(sequence: early.sequence, receivedAt: early.receivedAt)
        #expect(try write.settledValue() == expected)

        let batch = state.take(maximum: 10, maximumAcknowledged: 10)
        #expect(batch.count == 1, "the acknowledged append, which records the acknowledgement")
        for settle in state.failed(batch, with: WotsError(.storageUnavailable, "the disk went away")) { settle() }
        #expect(try write.settledValue() == expected, "the receipt stands")
        #expect(state.items.isEmpty && state.appendsByKey.isEmpty)
    }
}
