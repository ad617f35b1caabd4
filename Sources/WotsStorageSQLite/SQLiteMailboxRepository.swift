public import Foundation
import GRDB
public import WotsCore
public import WotsStorage

/// Store-and-forward mailboxes in SQLite.
///
/// Each recipient has a counter row (next sequence, depth) updated in the same transaction as the insert, so
/// sequences are gap-free, strictly increasing and never reused. Concurrent appends and acknowledgements are
/// group-committed: those that arrive while a transaction is being written share the next one (and its fsync).
public struct SQLiteMailboxRepository: MailboxRepository {
    /// Most messages one transaction deletes.
    static let acknowledgementsPerTransaction = 100

    let database: SQLiteDatabase
    private let writes: GroupCommitQueue<MailboxWrite, MailboxWrite.Outcome>

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
        self.writes = GroupCommitQueue(deadline: database.configuration.operationTimeout) { writes in
            try await database.write("write \(writes.count) mailbox changes") { db in
                try writes.map { try $0.perform(in: db) }
            }
        }
    }

    public func append(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> MailboxReceipt {
        try await self.database.requireFreeSpace()
        let request = AppendRequest(
            envelope: envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
        guard case .stored(let receipt) = try await self.writes.submit(.append(request)) else {
            throw WotsError(.storageCorrupted, "an append was answered as an acknowledgement")
        }
        return receipt
    }

    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        guard !envelopes.isEmpty else { return [] }
        try await self.database.requireFreeSpace()
        let requests = envelopes.map {
            AppendRequest(
                envelope: $0,
                receivedAt: receivedAt,
                mailboxCapacity: mailboxCapacity,
                mailboxQuota: mailboxQuota
            )
        }
        return try await self.database.write("append a batch of \(requests.count) envelopes") { db in
            try requests.map { try $0.store(in: db) }
        }
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]
    {
        guard limit > 0 else { return [] }
        let now = now.millisecondsSince1970
        return try await self.database.read("read a mailbox") { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT sequence, received_at_ms, envelope FROM mailbox_messages AS m
                        WHERE recipient = ? AND sequence > ? AND NOT EXISTS (
                            SELECT 1 FROM mailbox_expiries AS e
                            WHERE e.recipient = m.recipient AND e.sequence = m.sequence AND e.expires_at_ms <= ?
                        )
                        ORDER BY sequence
                        LIMIT ?
                        """
                ),
                arguments: [recipient.databaseBytes, sequence, now, limit]
            )
            return try rows.map { row in
                let sequence: Int64 = row["sequence"]
                let envelope: Envelope
                do {
                    envelope = try Envelope(serialized: [UInt8](row["envelope"] as Data))
                } catch {
                    throw WotsError(
                        .storageCorrupted,
                        "message \(sequence) of \(recipient) could not be decoded: \(error)"
                    )
                }
                return MailboxMessage(
                    sequence: sequence,
                    receivedAt: Date(millisecondsSince1970: row["received_at_ms"]),
                    envelope: envelope
                )
            }
        }
    }

    @discardableResult
    public func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey] {
        var seen = Set<MessageKey>()
        let unique = keys.filter { seen.insert($0).inserted }
        var deleted: [MessageKey] = []
        // Small transactions keep the write-ahead log small, so acknowledgements still fit on a nearly full disk.
        for start in stride(from: 0, to: unique.count, by: Self.acknowledgementsPerTransaction) {
            let chunk = Array(unique[start..<min(start + Self.acknowledgementsPerTransaction, unique.count)])
            guard
                case .acknowledged(let some) = try await self.writes.submit(
                    .acknowledge(chunk, recipient: recipient, at: now)
                )
            else {
                throw WotsError(.storageCorrupted, "an acknowledgement was answered as an append")
            }
            deleted += some
        }
        return deleted
    }

    public func depth(of recipient: Token) async throws -> Int {
        try await self.database.read("read a mailbox depth") { db in
            try Int.fetchOne(
                db,
                sql: "SELECT depth FROM mailbox_counters WHERE recipient = ?",
                arguments: [recipient.databaseBytes]
            ) ?? 0
        }
    }

    public func statistics() async throws -> MailboxStatistics {
        try await self.database.read("read mailbox statistics") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COALESCE(SUM(depth), 0) AS waiting, COALESCE(MAX(depth), 0) AS deepest,
                        (SELECT count(*) FROM expiry_notices) AS notices
                    FROM mailbox_counters
                    """
            )
            return MailboxStatistics(
                waiting: row?["waiting"] ?? 0,
                deepest: row?["deepest"] ?? 0,
                expiryNotices: row?["notices"] ?? 0
            )
        }
    }

    public func deleteMailbox(of recipient: Token) async throws {
        try await self.database.write("delete a mailbox") { db in try MailboxWrite.deleteMailbox(of: recipient, in: db)
        }
    }

    @discardableResult
    public func forgetAcknowledgements(before cutoff: Date) async throws -> Int {
        try await self.database.write("forget old acknowledgements") { db in
            try db.execute(
                sql: "DELETE FROM acknowledged_messages WHERE acknowledged_at_ms < ?",
                arguments: [cutoff.millisecondsSince1970RoundedUp]
            )
            return db.changesCount
        }
    }
}
