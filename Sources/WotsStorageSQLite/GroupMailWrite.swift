import Foundation
import GRDB
import WotsCore
import WotsStorage

/// The group-message changes of `SQLiteMailboxRepository+Groups`, each inside the caller's transaction.
enum GroupMailWrite {
    /// Stores the body once and every slot, or throws without writing anything.
    static func append(
        _ envelope: GroupEnvelope,
        slots: [GroupSlot],
        receivedAt: Int64,
        capacity: Int,
        quota: Int,
        in db: Database
    ) throws -> GroupMailboxReceipt {
        let header = envelope.header
        let key: StatementArguments = [header.sender.databaseBytes, header.messageID.databaseBytes]
        let body = Data(envelope.serialized)
        if let held = try Row.fetchOne(
            db,
            sql: "SELECT received_at_ms, body FROM group_bodies WHERE sender = ? AND message_id = ?",
            arguments: key
        ) {
            guard held["body"] as Data == body else {
                throw WotsError(
                    .messageIDConflict,
                    "message id \(header.messageID.lowercasedString) was used by this sender for another group message"
                )
            }
            let sequences = try slots.map { slot in
                try Int64.fetchOne(
                    db,
                    sql: "SELECT sequence FROM group_slots WHERE sender = ? AND message_id = ? AND recipient = ?",
                    arguments: key + [slot.recipient.databaseBytes]
                ) ?? 0
            }
            return GroupMailboxReceipt(
                receivedAt: Date(millisecondsSince1970: held["received_at_ms"]),
                sequences: sequences,
                isNew: false
            )
        }
        if let remembered = try Row.fetchOne(
            db,
            sql: "SELECT received_at_ms, tag FROM acknowledged_group_messages WHERE sender = ? AND message_id = ?",
            arguments: key
        ) {
            guard [UInt8](remembered["tag"] as Data) == envelope.signature else {
                throw WotsError(
                    .messageIDConflict,
                    "message id \(header.messageID.lowercasedString) was used by this sender for another group message"
                )
            }
            return GroupMailboxReceipt(
                receivedAt: Date(millisecondsSince1970: remembered["received_at_ms"]),
                sequences: [Int64](repeating: 0, count: slots.count),
                isNew: false
            )
        }
        let charged = envelope.chargedBytesPerSlot
        var next: [Int64] = []
        for slot in slots {
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT
                        COALESCE((SELECT next_sequence FROM mailbox_counters WHERE recipient = ?1), 1) AS next_sequence,
                        COALESCE((SELECT depth FROM mailbox_counters WHERE recipient = ?1), 0)
                            + (SELECT count(*) FROM group_slots WHERE recipient = ?1) AS depth,
                        COALESCE((SELECT bytes FROM mailbox_sizes WHERE recipient = ?1), 0)
                            + COALESCE((SELECT sum(charged_bytes) FROM group_slots WHERE recipient = ?1), 0) AS bytes
                    """,
                arguments: [slot.recipient.databaseBytes]
            )
            guard let row else { throw WotsError(.storageCorrupted, "a mailbox counter query returned no row") }
            guard (row["depth"] as Int) < capacity else {
                throw WotsError(
                    .mailboxFull,
                    "mailbox of \(slot.recipient) holds \(capacity) messages already; nothing was stored"
                )
            }
            guard charged <= quota - (row["bytes"] as Int) else {
                throw WotsError.quotaExceeded(recipient: slot.recipient, envelopeSize: charged, quota: quota)
            }
            next.append(row["next_sequence"])
        }
        try db.execute(
            sql: """
                INSERT INTO group_bodies (sender, message_id, received_at_ms, expires_at_ms, slots_waiting, body)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: key + [receivedAt, envelope.mailboxExpiryMilliseconds, slots.count, body]
        )
        let insertSlot = try db.cachedStatement(
            sql: """
                INSERT INTO group_slots (recipient, sequence, sender, message_id, wrapped_key, charged_bytes)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        )
        let advance = try db.cachedStatement(
            sql: """
                INSERT INTO mailbox_counters (recipient, next_sequence, depth) VALUES (?, ?, 0)
                ON CONFLICT (recipient) DO UPDATE SET next_sequence = excluded.next_sequence
                """
        )
        for (slot, sequence) in zip(slots, next) {
            let recipient = slot.recipient.databaseBytes
            let arguments: StatementArguments = [
                recipient, sequence, header.sender.databaseBytes, header.messageID.databaseBytes,
                Data(slot.wrappedKey), charged,
            ]
            try insertSlot.execute(arguments: arguments)
            try advance.execute(arguments: [recipient, sequence + 1])
        }
        return GroupMailboxReceipt(receivedAt: Date(millisecondsSince1970: receivedAt), sequences: next)
    }

    /// Deletes one recipient's slot, and the body with its last slot; a body whose last slot was acknowledged
    /// (`acknowledgedAt` given, in milliseconds) is remembered. - Returns: whether the slot was there.
    static func removeSlot(
        _ key: MessageKey,
        of recipient: Token,
        acknowledgedAt: Int64? = nil,
        in db: Database
    ) throws -> Bool {
        let arguments: StatementArguments = [key.sender.databaseBytes, key.id.databaseBytes]
        try db.execute(
            sql: "DELETE FROM group_slots WHERE sender = ? AND message_id = ? AND recipient = ?",
            arguments: arguments + [recipient.databaseBytes]
        )
        guard db.changesCount == 1 else { return false }
        try db.execute(
            sql: "UPDATE group_bodies SET slots_waiting = slots_waiting - 1 WHERE sender = ? AND message_id = ?",
            arguments: arguments
        )
        if let acknowledgedAt {
            // The tag is the body's last 256 bytes: the sender's signature over all the others.
            try db.execute(
                sql: """
                    INSERT INTO acknowledged_group_messages (sender, message_id, received_at_ms, tag, acknowledged_at_ms)
                    SELECT sender, message_id, received_at_ms, substr(body, length(body) - 255), ?
                    FROM group_bodies WHERE sender = ? AND message_id = ? AND slots_waiting = 0
                    ON CONFLICT (sender, message_id) DO NOTHING
                    """,
                arguments: [acknowledgedAt] + arguments
            )
        }
        try db.execute(
            sql: "DELETE FROM group_bodies WHERE sender = ? AND message_id = ? AND slots_waiting = 0",
            arguments: arguments
        )
        return true
    }

    /// Deletes every slot of a recipient (account deletion), and each body whose last slot that was.
    static func removeSlots(of recipient: Token, in db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT sender, message_id FROM group_slots WHERE recipient = ?",
            arguments: [recipient.databaseBytes]
        )
        for row in rows {
            let key = MessageKey(
                sender: try Token(databaseBytes: row["sender"]),
                id: UUID(uuid: try Self.uuidBytes(row["message_id"]))
            )
            _ = try Self.removeSlot(key, of: recipient, in: db)
        }
    }

    static func uuidBytes(_ data: Data) throws -> uuid_t {
        let bytes = [UInt8](data)
        guard bytes.count == 16 else { throw WotsError(.storageCorrupted, "a stored message id is not 16 bytes") }
        return (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        )
    }
}
