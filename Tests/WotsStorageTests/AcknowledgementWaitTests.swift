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

    @Test func aFullBatchLeavesAMessageHandedToAReaderStagedForItsAcknowledgement() async throws {
        try await withMailboxes(acknowledgementWait: Self.longWait) { database, mailboxes in
            let bob = TestValues.token()
            // Mailboxes hold 100 messages here: enough others to fill a batch beside bob's message.
            let others = (0..<8).map { _ in TestValues.token() }
            for recipient in [bob] + others { try await knowCounter(of: recipient, in: mailboxes) }
            let read = TestValues.envelope(from: TestValues.token(), to: bob)
            let unread = (1..<MailboxPipeline.maximumBatch).map { index in
                TestValues.envelope(from: TestValues.token(), to: others[index % others.count])
            }
            let elapsed = try await ContinuousClock().measure {
                let readWrite = try await enqueue(read, in: mailboxes, handedToReader: true)
                var unreadWrites: [PendingWrite<MailboxReceipt>] = []
                for envelope in unread {
                    unreadWrites.append(try await enqueue(envelope, in: mailboxes, handedToReader: false))
                }
                for write in unreadWrites { #expect(try await write.outcome().isNew) }
                #expect(try await writtenAsWaiting(unread[0], in: database), "the full batch was written")
                let acknowledgement = try await mailboxes.enqueueAcknowledge(
                    [read.header.messageKey],
                    for: bob,
                    at: TestValues.time()
                )
                #expect(try await readWrite.outcome().isNew)
                // A write that need not wait, finding nothing else worth waiting for, ends the writer's pause.
                let last = TestValues.envelope(from: TestValues.token(), to: others[0])
                #expect(try await enqueue(last, in: mailboxes, handedToReader: false).outcome().isNew)
                #expect(try await acknowledgement.outcome() == [read.header.messageKey])
            }
            #expect(elapsed < Self.longWait / 2)
            #expect(try await !writtenAsWaiting(read, in: database), "left out of the full batch, then acknowledged")
            #expect(try await mailboxes.depth(of: bob) == 1)
            #expect(try await !enqueue(read, in: mailboxes, handedToReader: true).outcome().isNew)
        }
    }

    @Test func anAcknowledgementOfManyIsAnsweredWhenEveryPartIsEvenIfTheLastWasAnsweredAtOnce() async throws {
        try await withMailboxes(acknowledgementWait: Self.longWait) { database, mailboxes in
            let bob = TestValues.token()
            try await knowCounter(of: bob, in: mailboxes)
            let written = (0..<10).map { _ in TestValues.envelope(from: TestValues.token(), to: bob) }
            for envelope in written {
                #expect(try await enqueue(envelope, in: mailboxes, handedToReader: false).outcome().isNew)
            }
            let staged = (0..<10).map { _ in TestValues.envelope(from: TestValues.token(), to: bob) }
            for envelope in staged { _ = try await enqueue(envelope, in: mailboxes, handedToReader: true) }
            // Chunked by `acknowledgementsPerTransaction`: the first chunk deletes written messages, the last only
            // cancels staged ones and is answered at once.
            let unknown = (0..<(SQLiteMailboxRepository.acknowledgementsPerTransaction - written.count)).map { _ in
                MessageKey(sender: TestValues.token(), id: UUID())
            }
            let keys = written.map(\.header.messageKey) + unknown + staged.map(\.header.messageKey)
            let acknowledgement = try await mailboxes.enqueueAcknowledge(keys, for: bob, at: TestValues.time())
            #expect(!acknowledgement.isSettled, "the first chunk waits for its commit")
            let wakeUp = TestValues.envelope(from: TestValues.token(), to: bob)
            _ = try await enqueue(wakeUp, in: mailboxes, handedToReader: false).outcome()
            let acknowledged = try await acknowledgement.outcome()
            #expect(acknowledged == (written + staged).map(\.header.messageKey))
            #expect(try await mailboxes.depth(of: bob) == 2)
        }
    }

    @Test func aTransactionLeavesAnAwaitedMessageAndItsRecipientsLaterMailUntilTheWaitIsOver() throws {
        var state = MailboxPipeline.State()
        let bob = TestValues.token()
        let carol = TestValues.token()
        state.counters[bob] = MailboxPipeline.Counter(isValid: true, next: 1)
        state.counters[carol] = MailboxPipeline.Counter(isValid: true, next: 1)
        func takenIDs(at now: ContinuousClock.Instant) -> [UUID] {
            state.take(maximum: 10, maximumAcknowledged: 10, leavingAwaitedWithin: wait, at: now).compactMap {
                guard case .early(let message, _) = $0.1 else { return nil }
                return message.envelope.header.messageID
            }
        }
        let wait = Duration.seconds(1)
        let awaited = TestValues.envelope(from: TestValues.token(), to: bob)
        let bobsNext = TestValues.envelope(from: TestValues.token(), to: bob)
        let carols = TestValues.envelope(from: TestValues.token(), to: carol)
        state.stageForTest(awaited)
        state.stageForTest(bobsNext, handedToReader: false)
        state.stageForTest(carols, handedToReader: false)

        let staged = ContinuousClock.now
        #expect(takenIDs(at: staged) == [carols.header.messageID], "bob's mail stays in the order it was numbered")
        #expect(state.wait(delay: wait, fullBatch: 1) > .zero, "what was left is no full batch")
        #expect(takenIDs(at: staged + wait) == [awaited, bobsNext].map(\.header.messageID), "the wait is over")
        #expect(state.queue.isEmpty && state.awaitedAcknowledgements == 0)

        let acknowledged = TestValues.envelope(from: TestValues.token(), to: bob)
        state.stageForTest(acknowledged)
        let (acknowledgement, receipts) = state.stageAcknowledgement(
            [acknowledged.header.messageKey],
            for: bob,
            at: TestValues.time()
        )
        #expect(receipts.count == 1, "spared: answered at its acknowledgement")
        #expect(acknowledgement.isSettled, "nothing of the acknowledgement is left to write")
        let batch = state.take(maximum: 10, maximumAcknowledged: 10, leavingAwaitedWithin: wait, at: .now)
        guard case .early(_, let acknowledgedAt) = batch.first?.1 else {
            Issue.record("the acknowledged message is taken at once, to be remembered as acknowledged")
            return
        }
        #expect(acknowledgedAt != nil && batch.count == 1)
    }

    @Test func anAcknowledgementNamingAMessageAlreadyTakenWaitsForItsCommit() throws {
        var state = MailboxPipeline.State()
        let bob = TestValues.token()
        state.counters[bob] = MailboxPipeline.Counter(isValid: true, next: 1)
        let envelopes = (0..<2).map { _ in TestValues.envelope(from: TestValues.token(), to: bob) }
        for envelope in envelopes { state.stageForTest(envelope) }
        _ = state.take(maximum: 1, maximumAcknowledged: 10)
        let (acknowledgement, receipts) = state.stageAcknowledgement(
            envelopes.map(\.header.messageKey),
            for: bob,
            at: TestValues.time()
        )
        #expect(receipts.count == 1, "the one not taken yet is spared")
        #expect(!acknowledgement.isSettled, "the one taken is deleted by a transaction")
        guard case .acknowledgement(let keys, _, _) = state.take(maximum: 10, maximumAcknowledged: 10).last?.1 else {
            Issue.record("the acknowledgement is staged")
            return
        }
        #expect(keys == [envelopes[0].header.messageKey])
    }

    @Test func anExclusiveWriteTakesEverythingStagedBeforeIt() throws {
        var state = MailboxPipeline.State()
        let bob = TestValues.token()
        state.counters[bob] = MailboxPipeline.Counter(isValid: true, next: 1)
        let awaited = TestValues.envelope(from: TestValues.token(), to: bob)
        state.stageForTest(awaited)
        state.stageExclusive(
            MailboxPipeline.StagedExclusive(recipients: [bob], perform: { _ in {} }, fail: { _ in })
        )
        let batch = state.take(maximum: 10, maximumAcknowledged: 10, leavingAwaitedWithin: .seconds(60), at: .now)
        #expect(batch.count == 2, "the exclusive write follows the message, so the message cannot wait for it")
        #expect(state.exclusivesStaged == 0)
    }

    @Test func theWriterWaitsOnlyWhileAMessageHandedToAReaderIsUnacknowledgedAndNotTaken() throws {
        var state = MailboxPipeline.State()
        let bob = TestValues.token()
        state.counters[bob] = MailboxPipeline.Counter(isValid: true, next: 1)
        let wait = Duration.seconds(1)
        let unread = TestValues.envelope(from: TestValues.token(), to: bob)
        state.stageForTest(unread)
        #expect(state.wait(delay: wait, fullBatch: 10) > .zero, "numbered early: it may be handed to a reader")
        state.handedToNobody(unread.header.messageKey)
        state.handedToNobody(unread.header.messageKey)
        #expect(state.wait(delay: wait, fullBatch: 10) == .zero, "nobody was handed it")

        let read = TestValues.envelope(from: TestValues.token(), to: bob)
        state.stageForTest(read)
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
        state.stageForTest(taken)
        #expect(state.wait(delay: wait, fullBatch: 10) > .zero)
        _ = state.take(maximum: 10, maximumAcknowledged: 10)
        #expect(state.wait(delay: wait, fullBatch: 10) == .zero, "taken: too late to spare")
        state.handedToNobody(taken.header.messageKey)
        #expect(state.awaitedAcknowledgements == 0, "a taken message is awaited no more")
    }
}
