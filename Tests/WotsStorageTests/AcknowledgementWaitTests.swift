import Foundation
import GRDB
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// A mailbox transaction waits a little for the acknowledgements of messages handed to their readers (so that those
/// are never written as waiting), and for nothing else.
@Suite struct AcknowledgementWaitTests {
    /// Far longer than any test here may take: a test that waits it out fails its `elapsed` check.
    static let longWait: Duration = .seconds(60)

    private func withMailboxes(
        acknowledgementWait: Duration,
        _ body: (SQLiteDatabase, SQLiteMailboxRepository) async throws -> Void
    ) async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = SQLiteDatabase.Configuration()
        configuration.acknowledgementWait = acknowledgementWait
        let database = try await SQLiteDatabase(
            path: folder.appendingPathComponent("relay.sqlite").path,
            configuration: configuration
        )
        // Every message ever written as waiting, even if deleted in the same transaction.
        try await database.pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE written_as_waiting (message_id BLOB NOT NULL);
                    CREATE TRIGGER log_waiting AFTER INSERT ON mailbox_messages
                    BEGIN INSERT INTO written_as_waiting VALUES (new.message_id); END;
                    """
            )
        }
        try await body(database, SQLiteMailboxRepository(database: database))
        try database.close()
    }

    private func writtenAsWaiting(_ envelope: Envelope, in database: SQLiteDatabase) async throws -> Bool {
        try await database.read("look for a written message") { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM written_as_waiting WHERE message_id = ?)",
                arguments: [envelope.header.messageID.databaseBytes]
            ) ?? false
        }
    }

    /// Stages `envelope`, handing it to a reader when `handedToReader` (announce's answer).
    private func enqueue(
        _ envelope: Envelope,
        in mailboxes: SQLiteMailboxRepository,
        handedToReader: Bool
    ) async throws -> PendingWrite<MailboxReceipt> {
        try await mailboxes.stage(envelope, announce: { _ in handedToReader })
    }

    /// Makes the pipeline know `recipient`'s counter, so that its next messages are numbered before their commit.
    private func knowCounter(of recipient: Token, in mailboxes: SQLiteMailboxRepository) async throws {
        _ = try await mailboxes.append(
            TestValues.envelope(from: TestValues.token(), to: recipient),
            receivedAt: TestValues.time(),
            mailboxCapacity: 100
        )
    }

    @Test func aMessageAcknowledgedWithinTheWaitIsNeverWrittenAsWaiting() async throws {
        try await withMailboxes(acknowledgementWait: Self.longWait) { database, mailboxes in
            let bob = TestValues.token()
            try await knowCounter(of: bob, in: mailboxes)
            let message = TestValues.envelope(from: TestValues.token(), to: bob)
            let unread = TestValues.envelope(from: TestValues.token(), to: bob)
            let elapsed = try await ContinuousClock().measure {
                let write = try await enqueue(message, in: mailboxes, handedToReader: true)
                let acknowledgement = try await mailboxes.enqueueAcknowledge(
                    [message.header.messageKey],
                    for: bob,
                    at: TestValues.time()
                )
                // A write that need not wait, finding nothing else worth waiting for, ends the writer's pause.
                let unreadWrite = try await enqueue(unread, in: mailboxes, handedToReader: false)
                let receipts = [try await write.outcome(), try await unreadWrite.outcome()]
                let acknowledged = try await acknowledgement.outcome()
                #expect(receipts.map(\.isNew) == [true, true])
                #expect(acknowledged == [message.header.messageKey])
            }
            #expect(elapsed < Self.longWait / 2)
            #expect(try await !writtenAsWaiting(message, in: database))
            #expect(try await writtenAsWaiting(unread, in: database))
            #expect(try await mailboxes.depth(of: bob) == 2)
            let retried = try await enqueue(message, in: mailboxes, handedToReader: true).outcome()
            #expect(!retried.isNew, "remembered as acknowledged")
        }
    }

    @Test func aMessageNobodyWasHandedIsWrittenWithoutWaitingTheWait() async throws {
        try await withMailboxes(acknowledgementWait: Self.longWait) { database, mailboxes in
            let bob = TestValues.token()
            try await knowCounter(of: bob, in: mailboxes)
            let message = TestValues.envelope(from: TestValues.token(), to: bob)
            let elapsed = try await ContinuousClock().measure {
                let receipt = try await enqueue(message, in: mailboxes, handedToReader: false).outcome()
                #expect(receipt.isNew)
            }
            #expect(elapsed < Self.longWait / 2)
            #expect(try await writtenAsWaiting(message, in: database))
            #expect(try await mailboxes.messages(for: bob, after: 0, limit: 10).count == 2)
        }
    }

    @Test func aMessageNotAcknowledgedWithinTheWaitIsWrittenAsWaiting() async throws {
        try await withMailboxes(acknowledgementWait: .milliseconds(50)) { database, mailboxes in
            let bob = TestValues.token()
            try await knowCounter(of: bob, in: mailboxes)
            let message = TestValues.envelope(from: TestValues.token(), to: bob)
            let receipt = try await enqueue(message, in: mailboxes, handedToReader: true).outcome()
            #expect(receipt.isNew)
            #expect(try await writtenAsWaiting(message, in: database))
            #expect(
                try await mailboxes.messages(for: bob, after: 0, limit: 10).map(\.sequence).last == receipt.sequence
            )
        }
    }

    @Test func theWriterWaitsOnlyWhileAMessageHandedToAReaderIsUnacknowledgedAndNotTaken() throws {
        var state = MailboxPipeline.State()
        let bob = TestValues.token()
        state.counters[bob] = MailboxPipeline.Counter(isValid: true, next: 1)
        func stage(_ envelope: Envelope) {
            let request = AppendRequest(
                envelope: envelope,
                receivedAt: TestValues.time(),
                mailboxCapacity: 100,
                mailboxQuota: .max
            )
            _ = state.stageAppend(request, announce: { _ in true }, maximumEarly: 100)
        }
        let wait = Duration.seconds(1)
        let unread = TestValues.envelope(from: TestValues.token(), to: bob)
        stage(unread)
        #expect(state.wait(delay: wait, fullBatch: 10) > .zero, "numbered early: it may be handed to a reader")
        state.handedToNobody(unread.header.messageKey)
        state.handedToNobody(unread.header.messageKey)
        #expect(state.wait(delay: wait, fullBatch: 10) == .zero, "nobody was handed it")

        let read = TestValues.envelope(from: TestValues.token(), to: bob)
        stage(read)
        #expect(state.wait(delay: wait, fullBatch: 10) > .zero)
        #expect(state.wait(delay: wait, fullBatch: 2) == .zero, "a full batch does not wait")

        state.writerPauses = true
        let wokenWhileUnacknowledged = state.wakesWriter(delay: wait, fullBatch: 10)
        #expect(!wokenWhileUnacknowledged)
        _ = state.stageAcknowledgement([read.header.messageKey], for: bob, at: TestValues.time())
        #expect(state.wait(delay: wait, fullBatch: 10) == .zero, "acknowledged")
        let wokenWithNothingToWaitFor = state.wakesWriter(delay: wait, fullBatch: 10)
        let wokenAgain = state.wakesWriter(delay: wait, fullBatch: 10)
        #expect(wokenWithNothingToWaitFor && !wokenAgain, "woken once")

        state.handedToNobody(read.header.messageKey)
        #expect(state.awaitedAcknowledgements == 0, "an acknowledged message is awaited no more")

        let taken = TestValues.envelope(from: TestValues.token(), to: bob)
        stage(taken)
        #expect(state.wait(delay: wait, fullBatch: 10) > .zero)
        _ = state.take(maximum: 10, maximumAcknowledged: 10)
        #expect(state.wait(delay: wait, fullBatch: 10) == .zero, "taken: too late to spare")
        state.handedToNobody(taken.header.messageKey)
        #expect(state.awaitedAcknowledgements == 0, "a taken message is awaited no more")
    }
}
