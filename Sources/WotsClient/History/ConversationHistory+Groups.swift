import Foundation
import GRDB
public import WotsCore

extension ConversationHistory {
    /// Records the members a group message this account sent went to, each `sent`, so their receipts count.
    public func recordRecipients(of key: MessageKey, _ members: [Token]) throws {
        try self.write { db in
            for member in members {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO member_statuses (sender, id, member, status) VALUES (?, ?, ?, ?)",
                    arguments: [
                        Data(key.sender.bytes), key.id.rawBytes, Data(member.bytes), HistoryEntry.Status.sent.rawValue,
                    ]
                )
            }
        }
    }

    /// Moves `member`'s status of group messages this account sent forward to `status` (never back), and each
    /// message's own status to the least any of its members reached.
    ///
    /// Only a member the message went to counts: a receipt from anyone else changes nothing.
    /// - Returns: `groupMessages`, the keys that are group messages (whoever confirmed them), and `changed`, those
    ///   whose status with `member` moved.
    public func advance(_ keys: [MessageKey], for member: Token, to status: HistoryEntry.Status) throws
        -> (groupMessages: Set<MessageKey>, changed: [MessageKey])
    {
        try self.write { db in
            var groupMessages: Set<MessageKey> = []
            var changed: [MessageKey] = []
            for key in keys {
                let statuses = try Self.memberStatuses(of: key, in: db)
                guard !statuses.isEmpty else { continue }
                groupMessages.insert(key)
                guard let current = statuses[member], current < status else { continue }
                try db.execute(
                    sql: "UPDATE member_statuses SET status = ? WHERE sender = ? AND id = ? AND member = ?",
                    arguments: [status.rawValue, Data(key.sender.bytes), key.id.rawBytes, Data(member.bytes)]
                )
                changed.append(key)
                var updated = statuses
                updated[member] = status
                if let least = updated.values.min(), least > .sent {
                    try db.execute(
                        sql: "UPDATE messages SET status = ? WHERE sender = ? AND id = ?",
                        arguments: [least.rawValue, Data(key.sender.bytes), key.id.rawBytes]
                    )
                }
            }
            return (groupMessages, changed)
        }
    }

    /// How far a group message this account sent got with each member it went to; empty for any other message.
    public func memberStatuses(of key: MessageKey) throws -> [Token: HistoryEntry.Status] {
        try self.read { db in try Self.memberStatuses(of: key, in: db) }
    }

    static func memberStatuses(of key: MessageKey, in db: Database) throws -> [Token: HistoryEntry.Status] {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT member, status FROM member_statuses WHERE sender = ? AND id = ?",
            arguments: [Data(key.sender.bytes), key.id.rawBytes]
        )
        var statuses: [Token: HistoryEntry.Status] = [:]
        for row in rows {
            guard let member = try? Token(bytes: Array(row["member"] as Data)),
                let status = HistoryEntry.Status(rawValue: row["status"])
            else {
                throw WotsError(.localStore, "a member status row of \(Self.fileName) is damaged")
            }
            statuses[member] = status
        }
        return statuses
    }

    /// Deletes the member statuses of messages no longer kept (forgotten or disappeared).
    static func deleteOrphanedMemberStatuses(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM member_statuses WHERE NOT EXISTS (
                    SELECT 1 FROM messages AS m WHERE m.sender = member_statuses.sender AND m.id = member_statuses.id
                )
                """
        )
    }
}
