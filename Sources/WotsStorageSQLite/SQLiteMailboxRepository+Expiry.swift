public import Foundation
import GRDB
public import WotsCore
public import WotsStorage

extension SQLiteMailboxRepository {
    @discardableResult
    public func expire(receivedBefore cutoff: Date, at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let cutoff = cutoff.millisecondsSince1970RoundedUp
        let expiredAt = now.millisecondsSince1970
        let (count, recipients) = try await self.database.write("expire \(limit) old messages") { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        DELETE FROM mailbox_messages WHERE rowid IN (
                            SELECT rowid FROM mailbox_messages WHERE received_at_ms < ? ORDER BY received_at_ms LIMIT ?
                        )
                        RETURNING recipient, sender, message_id, received_at_ms, length(envelope) AS size
                        """
                ),
                arguments: [cutoff, limit]
            )
            let notice = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO expiry_notices
                        (sender, message_id, recipient, received_at_ms, expired_at_ms)
                    VALUES (?, ?, ?, ?, ?)
                    """
            )
            var removed: [Data: (count: Int, bytes: Int)] = [:]
            for row in rows {
                let recipient: Data = row["recipient"]
                try notice.execute(
                    arguments: [
                        row["sender"] as Data, row["message_id"] as Data, recipient, row["received_at_ms"] as Int64,
                        expiredAt,
                    ]
                )
                removed[recipient, default: (0, 0)].count += 1
                removed[recipient, default: (0, 0)].bytes += row["size"] as Int
            }
            for (recipient, change) in removed {
                try MailboxWrite.release(change.count, messagesOf: change.bytes, from: recipient, in: db)
            }
            return (rows.count, Array(removed.keys))
        }
        self.pipeline.invalidate(recipients.compactMap { try? Token(databaseBytes: $0) })
        return count
    }

    @discardableResult
    public func deleteExpired(at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let now = now.millisecondsSince1970
        let (count, recipients) = try await self.database.write("delete \(limit) messages past their expiresAt") { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        DELETE FROM mailbox_messages WHERE (recipient, sequence) IN (
                            SELECT recipient, sequence FROM mailbox_expiries WHERE expires_at_ms <= ?
                            ORDER BY expires_at_ms LIMIT ?
                        )
                        RETURNING recipient, length(envelope) AS size
                        """
                ),
                arguments: [now, limit]
            )
            var removed: [Data: (count: Int, bytes: Int)] = [:]
            for row in rows {
                let recipient: Data = row["recipient"]
                removed[recipient, default: (0, 0)].count += 1
                removed[recipient, default: (0, 0)].bytes += row["size"] as Int
            }
            for (recipient, change) in removed {
                try MailboxWrite.release(change.count, messagesOf: change.bytes, from: recipient, in: db)
            }
            return (rows.count, Array(removed.keys))
        }
        self.pipeline.invalidate(recipients.compactMap { try? Token(databaseBytes: $0) })
        return count
    }

    public func expiryNotices(for sender: Token, limit: Int) async throws -> [ExpiryNotice] {
        guard limit > 0 else { return [] }
        return try await self.database.read("read expiry notices") { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT message_id, recipient, received_at_ms, expired_at_ms FROM expiry_notices
                        WHERE sender = ? ORDER BY expired_at_ms, message_id LIMIT ?
                        """
                ),
                arguments: [sender.databaseBytes, limit]
            ).map { row in
                let id: Data = row["message_id"]
                guard id.count == 16 else {
                    throw WotsError(.storageCorrupted, "an expiry notice's message id is \(id.count) bytes, not 16")
                }
                return ExpiryNotice(
                    sender: sender,
                    messageID: UUID(uuid: id.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }),
                    recipient: try Token(databaseBytes: row["recipient"]),
                    receivedAt: Date(millisecondsSince1970: row["received_at_ms"]),
                    expiredAt: Date(millisecondsSince1970: row["expired_at_ms"])
                )
            }
        }
    }

    @discardableResult
    public func clearExpiryNotices(_ messageIDs: [UUID], for sender: Token) async throws -> [UUID] {
        guard !messageIDs.isEmpty else { return [] }
        return try await self.database.write("clear expiry notices") { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM expiry_notices WHERE sender = ? AND message_id = ?")
            return try messageIDs.filter { id in
                try delete.execute(arguments: [sender.databaseBytes, id.databaseBytes])
                return db.changesCount > 0
            }
        }
    }

    @discardableResult
    public func forgetExpiryNotices(before cutoff: Date) async throws -> Int {
        try await self.database.write("forget old expiry notices") { db in
            try db.execute(
                sql: "DELETE FROM expiry_notices WHERE expired_at_ms < ?",
                arguments: [cutoff.millisecondsSince1970RoundedUp]
            )
            return db.changesCount
        }
    }
}
