import Foundation
import Logging
import PostgresNIO
import Testing
import WotsCore
import WotsStorage

@testable import WotsStoragePostgres

/// The set-based statements of migration 0013 keep the plans a session makes for them (migration 0014), made with
/// whole-table reads off by the functions' own settings (migration 0015) in transactions opened as the relay opens its
/// own (`PostgresDatabase.opening`): a plan a session cached while the tables were small must not go on reading them
/// whole once they have grown (in `make bench-relay` that took the store over the stream on PostgreSQL from 9,000 to
/// 2,000 msg/s).
@Suite("PostgreSQL plans of the set-based statements")
struct PostgresSetBasedPlanTests {
    @Test func appendsAndAcknowledgementsOfASessionLookKeysUpByIndexOnceTheTablesHaveGrown() async throws {
        try await withTwoNodes { database, _ in
            let recipient = TestValues.token()
            try await database.client.withConnection { session in
                // Six calls while the tables are small, each in a transaction planned as the relay plans its own:
                // PL/pgSQL then settles on one plan for the session.
                for _ in 0..<6 {
                    let envelopes = (0..<3).map { _ in TestValues.envelope(from: TestValues.token(), to: recipient) }
                    try await Self.begin(on: session, logger: database.queryLogger)
                    _ = try await session.query(Self.append(envelopes), logger: database.queryLogger).collect()
                    _ = try await session.query(Self.acknowledge(envelopes), logger: database.queryLogger).collect()
                    try await session.query("COMMIT", logger: database.queryLogger)
                }
                _ = try await database.client.query(Self.fillBothTables(rows: 20_000)).collect()

                // The session's counts include its earlier statements until it reports them, which it does not do
                // inside a transaction: what the two calls add is the difference.
                try await Self.begin(on: session, logger: database.queryLogger)
                let before = try await Self.wholeTableReads(on: session, logger: database.queryLogger)
                let envelopes = (0..<50).map { _ in TestValues.envelope(from: TestValues.token(), to: recipient) }
                let stored = try await session.query(Self.append(envelopes), logger: database.queryLogger).collect()
                let acknowledged = try await session.query(Self.acknowledge(envelopes), logger: database.queryLogger)
                    .collect()
                let after = try await Self.wholeTableReads(on: session, logger: database.queryLogger)
                try await session.query("ROLLBACK", logger: database.queryLogger)

                #expect(stored.count == 50 && acknowledged.count == 50)
                #expect(after.keys.sorted() == ["acknowledged_messages", "mailbox_messages"])
                for (table, reads) in after {
                    #expect(reads == before[table], "\(table) was read whole \(reads - (before[table] ?? 0)) times")
                }
            }
        }
    }

    /// Opens a transaction as `PostgresDatabase.pipelinedTransaction` does.
    private static func begin(on session: PostgresConnection, logger: Logger) async throws {
        for statement in PostgresDatabase.opening {
            try await session.query(statement, logger: logger)
        }
    }

    /// Sequential scans of the two tables this session has made and not yet reported.
    private static func wholeTableReads(on session: PostgresConnection, logger: Logger) async throws -> [String: Int] {
        let rows = try await session.query(
            """
            SELECT relname, seq_scan FROM pg_stat_xact_user_tables
            WHERE relname IN ('mailbox_messages', 'acknowledged_messages')
            """,
            logger: logger
        ).collect()
        return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, Int).self) })
    }

    private static func append(_ envelopes: [Envelope]) -> PostgresQuery {
        MailboxAppend.query(
            envelopes.map {
                MailboxAppend(
                    envelope: $0,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: 1_000_000,
                    mailboxQuota: 1 << 30
                )
            }
        )
    }

    private static func acknowledge(_ envelopes: [Envelope]) -> PostgresQuery {
        let recipients = envelopes.map { ByteBuffer(bytes: $0.header.recipient.bytes) }
        let senders = envelopes.map { ByteBuffer(bytes: $0.header.sender.bytes) }
        let ids = envelopes.map(\.header.messageID)
        return "SELECT * FROM wots_acknowledge(\(recipients), \(senders), \(ids), \(TestValues.time()))"
    }

    /// Rows of other mailboxes, waiting and acknowledged, without `ANALYZE`: as a busy relay's tables grow between two
    /// runs of autovacuum.
    private static func fillBothTables(rows: Int) -> PostgresQuery {
        """
        WITH waiting AS (
            INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at, envelope)
            SELECT decode(md5('r' || (n % 100)), 'hex'), n, decode(md5('s' || n), 'hex'), gen_random_uuid(), now(),
                decode(repeat('ab', 1500), 'hex')
            FROM generate_series(1, \(rows)) AS n
        )
        INSERT INTO acknowledged_messages (sender, message_id, recipient, sequence, received_at, tag, acknowledged_at)
        SELECT decode(md5('a' || n), 'hex'), gen_random_uuid(), decode(md5('r' || (n % 100)), 'hex'), n, now(),
            decode(repeat('cd', 256), 'hex'), now()
        FROM generate_series(1, \(rows)) AS n
        """
    }
}
