import Foundation
import GRDB
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// SQLite migration 13 re-indexes `acknowledged_messages` by (recipient, time): a file of version 12 keeps every
/// acknowledgement it remembered, and deleting a mailbox still forgets only that recipient's.
@Suite struct AcknowledgementIndexMigrationTests {
    @Test func anSQLiteFileFromVersionTwelveKeepsItsAcknowledgementsAndForgetsOneMailboxsOnly() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wots.sqlite").path
        let bob = TestValues.token()
        let carol = TestValues.token()
        let toBob = TestValues.envelope(from: TestValues.token(), to: bob)
        let toCarol = TestValues.envelope(from: TestValues.token(), to: carol)
        try await SQLiteTestBackend.makeFile(at: path, ofVersion: 12) { db in
            // As a version-12 relay remembered an acknowledged message.
            for envelope in [toBob, toCarol] {
                try db.execute(
                    sql: """
                        INSERT INTO acknowledged_messages
                            (sender, message_id, recipient, sequence, received_at_ms, tag, acknowledged_at_ms)
                        VALUES (?, ?, ?, 7, 1700000000000, ?, 1700000001000)
                        """,
                    arguments: [
                        envelope.header.sender.databaseBytes, envelope.header.messageID.databaseBytes,
                        envelope.header.recipient.databaseBytes, Data(envelope.acknowledgementTag),
                    ]
                )
            }
        }

        let database = try await SQLiteDatabase(path: path)
        defer { try? database.close() }
        #expect(try await database.appliedMigrationVersions().contains(13))
        let indexes = try await database.read("list the indexes") { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'acknowledged_messages'"
            )
        }
        #expect(Set(indexes).contains("acknowledged_messages_recipient_acknowledged_at"))
        #expect(!indexes.contains("acknowledged_messages_recipient"))

        let mailboxes = SQLiteMailboxRepository(database: database)
        func retried(_ envelope: Envelope) async throws -> MailboxReceipt {
            try await mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 10, mailboxQuota: .max)
        }
        let remembered = try await retried(toBob)
        #expect(!remembered.isNew && remembered.sequence == 7, "answered with the first receipt")
        try await mailboxes.deleteMailbox(of: bob)
        #expect(try await retried(toBob).isNew, "bob's acknowledgements went with his mailbox")
        #expect(try await !retried(toCarol).isNew, "carol's stayed")
    }
}
