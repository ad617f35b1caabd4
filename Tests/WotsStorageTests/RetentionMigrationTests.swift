import Foundation
import GRDB
import PostgresNIO
import Testing
import WotsCore
import WotsStorage

@testable import WotsStoragePostgres
@testable import WotsStorageSQLite

/// Migrations SQLite 0005 and PostgreSQL 0006 applied to a database that already holds mail: existing mailboxes
/// get their byte totals, and existing messages expire by the time they were stored.
@Suite("Retention and quota migrations")
struct RetentionMigrationTests {
    static let old = Date(timeIntervalSince1970: 1_700_000_000)
    static let now = Date(timeIntervalSince1970: 1_700_000_900)

    @Test func aSQLiteDatabaseWithMailUpgradesToQuotasAndExpiry() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wots.sqlite").path
        let (alice, bob) = (TestValues.token(), TestValues.token())
        let waiting = [TestValues.envelope(from: alice, to: bob), TestValues.envelope(from: alice, to: bob)]

        // The schema as the previous release left it, with two messages waiting for bob.
        try await SQLiteTestBackend.makeFile(at: path, ofVersion: 4) { db in
            for (index, envelope) in waiting.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at_ms, envelope)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        bob.databaseBytes, index + 1, alice.databaseBytes, envelope.header.messageID.databaseBytes,
                        Self.old.millisecondsSince1970, Data(envelope.serialized),
                    ]
                )
            }
            try db.execute(
                sql: "INSERT INTO mailbox_counters (recipient, next_sequence, depth) VALUES (?, 3, 2)",
                arguments: [bob.databaseBytes]
            )
        }

        let database = try await SQLiteDatabase(path: path)
        #expect(try await database.appliedMigrationVersions().contains(5))
        try await Self.expectUpgraded(SQLiteMailboxRepository(database: database), alice, bob, waiting)
        try database.close()
    }

    @Test func aPostgresDatabaseWithMailUpgradesToQuotasAndExpiry() async throws {
        try await withTwoNodes(migrated: false) { nodeA, nodeB in
            #expect(try await nodeA.migrate(through: 4) == [1, 2, 3, 4])
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let waiting = [TestValues.envelope(from: alice, to: bob), TestValues.envelope(from: alice, to: bob)]
            // The previous release's append function, as a relay of that release would call it.
            let recipients = waiting.map { ByteBuffer(bytes: $0.header.recipient.bytes) }
            let senders = waiting.map { ByteBuffer(bytes: $0.header.sender.bytes) }
            let ids = waiting.map(\.header.messageID)
            let envelopes = waiting.map { ByteBuffer(bytes: $0.serialized) }
            let times = waiting.map { _ in Self.old }
            let capacities: [Int64] = [10, 10]
            let outcomes = try await nodeA.client.query(
                """
                SELECT outcome FROM wots_append_group(
                    \(recipients), \(senders), \(ids), \(envelopes), \(times), \(capacities)
                )
                """,
                logger: nodeA.queryLogger
            ).collect().map { try $0.decode(String.self) }
            #expect(outcomes == ["stored", "stored"])

            #expect(try await nodeB.migrate() == Array(5...15))
            try await Self.expectUpgraded(nodeA.mailboxes, alice, bob, waiting)
        }
    }

    /// The upgraded mailbox counts the bytes it held before, and its old messages expire with notices.
    private static func expectUpgraded(
        _ mailboxes: some MailboxRepository,
        _ alice: Token,
        _ bob: Token,
        _ waiting: [Envelope]
    ) async throws {
        let held = waiting.map(\.serialized.count).reduce(0, +)
        let next = TestValues.envelope(from: alice, to: bob)
        await expectStorageError(.mailboxQuotaExceeded) {
            _ = try await mailboxes.append(
                next,
                receivedAt: Self.now,
                mailboxCapacity: 10,
                mailboxQuota: held + next.serialized.count - 1
            )
        }
        #expect(try await mailboxes.depth(of: bob) == 2)
        #expect(try await mailboxes.expire(receivedBefore: Self.now, at: Self.now, limit: 10) == 2)
        #expect(
            Set(try await mailboxes.expiryNotices(for: alice, limit: 10).map(\.messageID))
                == Set(waiting.map(\.header.messageID))
        )
        let receipt = try await mailboxes.append(
            next,
            receivedAt: Self.now,
            mailboxCapacity: 10,
            mailboxQuota: next.serialized.count
        )
        #expect(receipt.sequence == 3)
    }
}
