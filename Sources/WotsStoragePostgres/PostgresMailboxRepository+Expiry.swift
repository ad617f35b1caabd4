public import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

extension PostgresMailboxRepository {
    @discardableResult
    public func expire(receivedBefore cutoff: Date, at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let expiredAt = PostgresTime.stored(now)
        return try await self.database.transaction("expire \(limit) old messages") { connection in
            // SKIP LOCKED leaves rows another relay is expiring (or a recipient acknowledging) to it: each message is
            // deleted, and noticed, once.
            let removed = try await connection.query(
                """
                WITH doomed AS (
                    SELECT recipient, sequence FROM mailbox_messages WHERE received_at < \(cutoff)
                    ORDER BY received_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                ), deleted AS (
                    DELETE FROM mailbox_messages AS m USING doomed AS d
                    WHERE m.recipient = d.recipient AND m.sequence = d.sequence
                    RETURNING m.recipient, m.sender, m.message_id, m.received_at, octet_length(m.envelope) AS size
                ), noticed AS (
                    INSERT INTO expiry_notices (sender, message_id, recipient, received_at, expired_at)
                    SELECT sender, message_id, recipient, received_at, \(expiredAt) FROM deleted
                    ON CONFLICT (sender, message_id) DO UPDATE
                    SET recipient = excluded.recipient, received_at = excluded.received_at,
                        expired_at = excluded.expired_at
                )
                SELECT recipient, count(*)::bigint, sum(size)::bigint FROM deleted GROUP BY recipient ORDER BY recipient
                """,
                logger: self.database.queryLogger
            ).collect().map { try $0.decode((Data, Int64, Int64).self) }
            return try await self.releaseCounters(of: removed, on: connection)
        }
    }

    @discardableResult
    public func deleteExpired(at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let now = PostgresTime.stored(now)
        return try await self.database.transaction("delete \(limit) messages past their expiresAt") { connection in
            // As in `expire`: each row is deleted by one relay, and counters are locked in recipient order.
            let removed = try await connection.query(
                """
                WITH doomed AS (
                    SELECT m.recipient, m.sequence FROM mailbox_expiries AS e
                    JOIN mailbox_messages AS m ON m.recipient = e.recipient AND m.sequence = e.sequence
                    WHERE e.expires_at <= \(now)
                    ORDER BY e.expires_at LIMIT \(limit) FOR UPDATE OF m SKIP LOCKED
                ), deleted AS (
                    DELETE FROM mailbox_messages AS m USING doomed AS d
                    WHERE m.recipient = d.recipient AND m.sequence = d.sequence
                    RETURNING m.recipient, octet_length(m.envelope) AS size
                )
                SELECT recipient, count(*)::bigint, sum(size)::bigint FROM deleted GROUP BY recipient ORDER BY recipient
                """,
                logger: self.database.queryLogger
            ).collect().map { try $0.decode((Data, Int64, Int64).self) }
            return try await self.releaseCounters(of: removed, on: connection)
        }
    }

    public func expiryNotices(for sender: Token, limit: Int) async throws -> [ExpiryNotice] {
        guard limit > 0 else { return [] }
        let rows = try await self.database.withErrorMapping("read expiry notices") {
            try await self.database.client.query(
                """
                SELECT message_id, recipient, received_at, expired_at FROM expiry_notices
                WHERE sender = \(Data(sender.bytes)) ORDER BY expired_at, message_id LIMIT \(limit)
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        return try rows.map { row in
            let (id, recipient, receivedAt, expiredAt) = try row.decode((UUID, Data, Date, Date).self)
            return ExpiryNotice(
                sender: sender,
                messageID: id,
                recipient: try Token(bytes: Array(recipient)),
                receivedAt: PostgresTime.loaded(receivedAt),
                expiredAt: PostgresTime.loaded(expiredAt)
            )
        }
    }

    @discardableResult
    public func clearExpiryNotices(_ messageIDs: [UUID], for sender: Token) async throws -> [UUID] {
        guard !messageIDs.isEmpty else { return [] }
        let cleared = try await self.database.withErrorMapping("clear expiry notices") {
            try await self.database.client.query(
                """
                DELETE FROM expiry_notices
                WHERE sender = \(Data(sender.bytes)) AND message_id = ANY(\(messageIDs)::uuid[])
                RETURNING message_id
                """,
                logger: self.database.queryLogger
            ).collect().map { try $0.decode(UUID.self) }
        }
        let deleted = Set(cleared)
        var reported = Set<UUID>()
        return messageIDs.filter { deleted.contains($0) && reported.insert($0).inserted }
    }

    @discardableResult
    public func forgetExpiryNotices(before cutoff: Date) async throws -> Int {
        try await self.database.withErrorMapping("forget old expiry notices") {
            try await self.database.client.query(
                """
                WITH forgotten AS (DELETE FROM expiry_notices WHERE expired_at < \(cutoff) RETURNING 1)
                SELECT count(*) FROM forgotten
                """,
                logger: self.database.queryLogger
            ).collect().first?.decode(Int.self) ?? 0
        }
    }

    /// Takes deleted messages off their recipients' counters, given (recipient, count, bytes) rows in recipient
    /// order: counter rows are locked in that order, as appends lock them, so the two cannot deadlock.
    /// - Returns: how many messages were deleted.
    private func releaseCounters(
        of removed: [(Data, Int64, Int64)],
        on connection: PostgresConnection
    ) async throws -> Int {
        for (recipient, count, bytes) in removed {
            try await connection.query(
                """
                UPDATE mailbox_counters SET depth = depth - \(count), bytes = bytes - \(bytes)
                WHERE recipient = \(recipient)
                """,
                logger: self.database.queryLogger
            )
        }
        return removed.reduce(0) { $0 + Int($1.1) }
    }
}
