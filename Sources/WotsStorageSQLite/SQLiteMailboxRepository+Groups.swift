public import Foundation
import GRDB
public import WotsCore
public import WotsStorage

extension SQLiteMailboxRepository: GroupMailboxRepository {
    public func appendGroup(
        _ envelope: GroupEnvelope,
        slots: [GroupSlot],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> GroupMailboxReceipt {
        try await self.database.requireFreeSpace()
        let receivedAt = receivedAt.millisecondsSince1970
        return try await self.pipeline.stageExclusive(recipients: Set(slots.map(\.recipient))) { db in
            try GroupMailWrite.append(
                envelope,
                slots: slots,
                receivedAt: receivedAt,
                capacity: mailboxCapacity,
                quota: mailboxQuota,
                in: db
            )
        }.outcome()
    }

    public func groupMessages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [GroupMailboxMessage]
    {
        guard limit > 0 else { return [] }
        let now = now.millisecondsSince1970
        return try await self.database.read("read group messages") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.sequence, s.wrapped_key, b.received_at_ms, b.body
                    FROM group_slots AS s
                    JOIN group_bodies AS b ON b.sender = s.sender AND b.message_id = s.message_id
                    WHERE s.recipient = ? AND s.sequence > ? AND (b.expires_at_ms IS NULL OR b.expires_at_ms > ?)
                    ORDER BY s.sequence
                    LIMIT ?
                    """,
                arguments: [recipient.databaseBytes, sequence, now, limit]
            )
            return try rows.map { row in
                let sequence: Int64 = row["sequence"]
                let envelope: GroupEnvelope
                do {
                    envelope = try GroupEnvelope(serialized: [UInt8](row["body"] as Data))
                } catch {
                    throw WotsError(.storageCorrupted, "group message \(sequence) of \(recipient) does not decode")
                }
                return GroupMailboxMessage(
                    sequence: sequence,
                    receivedAt: Date(millisecondsSince1970: row["received_at_ms"]),
                    envelope: envelope,
                    slot: [UInt8](row["wrapped_key"] as Data)
                )
            }
        }
    }

    @discardableResult
    public func acknowledgeGroup(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws
        -> [MessageKey]
    {
        guard !keys.isEmpty else { return [] }
        let now = now.millisecondsSince1970
        return try await self.database.write("acknowledge \(keys.count) group messages") { db in
            try keys.filter { try GroupMailWrite.removeSlot($0, of: recipient, acknowledgedAt: now, in: db) }
        }
    }

    @discardableResult
    public func deleteExpiredGroupMessages(at now: Date, limit: Int) async throws -> Int {
        try await self.deleteGroupBodies(
            "delete expired group messages",
            where: "expires_at_ms IS NOT NULL AND expires_at_ms <= ? ORDER BY expires_at_ms",
            now.millisecondsSince1970,
            limit: limit
        )
    }

    @discardableResult
    public func expireGroupMessages(receivedBefore cutoff: Date, limit: Int) async throws -> Int {
        try await self.deleteGroupBodies(
            "expire old group messages",
            where: "received_at_ms < ? ORDER BY received_at_ms",
            cutoff.millisecondsSince1970RoundedUp,
            limit: limit
        )
    }

    /// Deletes up to `limit` bodies chosen by `condition` (a WHERE clause with one `?` for `value`, and its ORDER BY),
    /// with their slots, in one transaction.
    private func deleteGroupBodies(_ purpose: String, where condition: String, _ value: Int64, limit: Int)
        async throws -> Int
    {
        guard limit > 0 else { return 0 }
        return try await self.database.write(purpose) { db in
            let doomed = try Row.fetchAll(
                db,
                sql: "SELECT sender, message_id FROM group_bodies WHERE \(condition) LIMIT ?",
                arguments: [value, limit]
            )
            for row in doomed {
                let key: StatementArguments = [row["sender"] as Data, row["message_id"] as Data]
                try db.execute(sql: "DELETE FROM group_slots WHERE sender = ? AND message_id = ?", arguments: key)
                try db.execute(sql: "DELETE FROM group_bodies WHERE sender = ? AND message_id = ?", arguments: key)
            }
            return doomed.count
        }
    }

    @discardableResult
    public func forgetAcknowledgedGroupMessages(before cutoff: Date) async throws -> Int {
        let cutoff = cutoff.millisecondsSince1970RoundedUp
        return try await self.database.write("forget acknowledged group messages") { db in
            try db.execute(
                sql: "DELETE FROM acknowledged_group_messages WHERE acknowledged_at_ms < ?",
                arguments: [cutoff]
            )
            return db.changesCount
        }
    }

    public func groupStatistics() async throws -> GroupStorageStatistics {
        try await self.database.read("read group message statistics") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT count(*) FROM group_bodies) AS bodies, (SELECT count(*) FROM group_slots) AS slots,
                        (SELECT COALESCE(sum(length(body)), 0) FROM group_bodies) AS bytes
                    """
            )
            return GroupStorageStatistics(
                bodies: row?["bodies"] ?? 0,
                slots: row?["slots"] ?? 0,
                bodyBytes: row?["bytes"] ?? 0
            )
        }
    }
}
