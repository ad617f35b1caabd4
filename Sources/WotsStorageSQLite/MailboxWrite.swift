import Foundation
import GRDB
import WotsCore
import WotsStorage

/// One `append` call's arguments.
struct AppendRequest: Sendable {
    var envelope: Envelope
    var receivedAt: Date
    var mailboxCapacity: Int
    var mailboxQuota: Int
}

/// Mailbox changes made inside the caller's transaction.
enum MailboxWrite {
    /// Deletes the recipient's messages with these keys and remembers each as acknowledged.
    /// - Returns: the keys deleted, and the serialized bytes they took.
    static func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date, in db: Database) throws
        -> (keys: [MessageKey], bytes: Int)
    {
        // Statements that fetch a single value, or none: GRDB builds a table of column names for every `Row` fetch,
        // and these run once per acknowledged message.
        let remember = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO acknowledged_messages
                    (sender, message_id, recipient, sequence, received_at_ms, tag, acknowledged_at_ms)
                SELECT sender, message_id, recipient, sequence, received_at_ms,
                    substr(envelope, -\(Envelope.acknowledgementTagSize)), ?4
                FROM mailbox_messages WHERE sender = ?1 AND message_id = ?2 AND recipient = ?3
                """
        )
        let delete = try db.cachedStatement(
            sql: """
                DELETE FROM mailbox_messages WHERE sender = ? AND message_id = ? AND recipient = ?
                RETURNING length(envelope)
                """
        )
        var deleted: [MessageKey] = []
        deleted.reserveCapacity(keys.count)
        var bytes = 0
        let recipientBytes = recipient.databaseBytes
        let acknowledgedAt = now.millisecondsSince1970
        for key in keys {
            let arguments: StatementArguments = [key.sender.databaseBytes, key.id.databaseBytes, recipientBytes]
            try remember.execute(arguments: arguments + [acknowledgedAt])
            guard db.changesCount > 0, let size = try Int.fetchOne(delete, arguments: arguments) else { continue }
            deleted.append(key)
            bytes += size
        }
        if !deleted.isEmpty {
            try MailboxWrite.release(deleted.count, messagesOf: bytes, from: recipientBytes, in: db)
        }
        return (deleted, bytes)
    }

    /// Takes `count` messages of `bytes` in all off a recipient's depth and size.
    static func release(_ count: Int, messagesOf bytes: Int, from recipient: Data, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE mailbox_counters SET depth = depth - ? WHERE recipient = ?")
            .execute(arguments: [count, recipient])
        try db.cachedStatement(sql: "UPDATE mailbox_sizes SET bytes = bytes - ? WHERE recipient = ?")
            .execute(arguments: [bytes, recipient])
    }

    /// Removes every waiting message of a recipient, what is remembered of its acknowledged ones and the expiry notices
    /// held for it as a sender. The counter row stays, so the recipient's sequence numbers are never handed out again.
    static func deleteMailbox(of recipient: Token, in db: Database) throws {
        try GroupMailWrite.removeSlots(of: recipient, in: db)
        let recipient = recipient.databaseBytes
        try db.execute(sql: "DELETE FROM mailbox_messages WHERE recipient = ?", arguments: [recipient])
        try db.execute(sql: "UPDATE mailbox_counters SET depth = 0 WHERE recipient = ?", arguments: [recipient])
        try db.execute(sql: "DELETE FROM mailbox_sizes WHERE recipient = ?", arguments: [recipient])
        try db.execute(sql: "DELETE FROM acknowledged_messages WHERE recipient = ?", arguments: [recipient])
        try db.execute(sql: "DELETE FROM expiry_notices WHERE sender = ?", arguments: [recipient])
    }
}

extension AppendRequest {
    /// Stores the envelope inside the caller's transaction, or says why not.
    func store(in db: Database) throws -> Result<MailboxReceipt, WotsError> {
        if let held = try self.heldReceipt(in: db) { return held }
        let header = self.envelope.header
        let recipient = header.recipient.databaseBytes
        let counter = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT next_sequence, depth,
                        COALESCE((SELECT bytes FROM mailbox_sizes AS s WHERE s.recipient = c.recipient), 0) AS bytes
                    FROM mailbox_counters AS c WHERE recipient = ?
                    """
            ),
            arguments: [recipient]
        )
        let sequence: Int64 = counter?["next_sequence"] ?? 1
        let depth: Int = counter?["depth"] ?? 0
        let bytes: Int = counter?["bytes"] ?? 0
        guard depth < self.mailboxCapacity else {
            return .failure(
                WotsError(
                    .mailboxFull,
                    "the mailbox of \(header.recipient) holds \(self.mailboxCapacity) messages already"
                )
            )
        }
        let serialized = self.envelope.serialized
        guard serialized.count <= self.mailboxQuota - bytes else {
            return .failure(
                .quotaExceeded(recipient: header.recipient, envelopeSize: serialized.count, quota: self.mailboxQuota)
            )
        }
        let receivedAt = self.receivedAt.millisecondsSince1970
        let message = MailboxMessage(
            sequence: sequence,
            receivedAt: Date(millisecondsSince1970: receivedAt),
            envelope: self.envelope
        )
        try Self.insert(message, in: db)
        try db.cachedStatement(
            sql: """
                INSERT INTO mailbox_counters (recipient, next_sequence, depth) VALUES (?, ?, ?)
                ON CONFLICT (recipient) DO UPDATE SET next_sequence = excluded.next_sequence, depth = excluded.depth
                """
        ).execute(arguments: [recipient, sequence + 1, depth + 1])
        try db.cachedStatement(
            sql: """
                INSERT INTO mailbox_sizes (recipient, bytes) VALUES (?, ?)
                ON CONFLICT (recipient) DO UPDATE SET bytes = excluded.bytes
                """
        ).execute(arguments: [recipient, bytes + serialized.count])
        return .success(MailboxReceipt(sequence: sequence, receivedAt: message.receivedAt))
    }

    /// Inserts the message as waiting in its recipient's mailbox, with its expiry; counters are the caller's.
    static func insert(_ message: MailboxMessage, in db: Database) throws {
        let header = message.envelope.header
        let recipient = header.recipient.databaseBytes
        try db.cachedStatement(
            sql: """
                INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at_ms, envelope)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                recipient, message.sequence, header.sender.databaseBytes, header.messageID.databaseBytes,
                message.receivedAt.millisecondsSince1970, Data(message.envelope.serialized),
            ]
        )
        if let expiry = message.envelope.mailboxExpiryMilliseconds {
            try db.cachedStatement(
                sql: "INSERT INTO mailbox_expiries (recipient, sequence, expires_at_ms) VALUES (?, ?, ?)"
            ).execute(arguments: [recipient, message.sequence, expiry])
        }
    }

    /// The first receipt when this (sender, id) is waiting or remembered as acknowledged; a conflict when it was
    /// used for another envelope; nil when it is new. Each lookup is one statement, so it reads both tables at one
    /// moment even outside a transaction: a message acknowledged meanwhile is found in one of them.
    func heldReceipt(in db: Database) throws -> Result<MailboxReceipt, WotsError>? {
        let header = self.envelope.header
        let key: StatementArguments = [header.sender.databaseBytes, header.messageID.databaseBytes]
        // Nearly every send is new: a single-value lookup answers that without the column-name table GRDB builds for
        // each `Row` fetch. A key found here and gone by the next statement was forgotten meanwhile, as new.
        let isHeld = try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM mailbox_messages WHERE sender = ?1 AND message_id = ?2)
                        OR EXISTS (SELECT 1 FROM acknowledged_messages WHERE sender = ?1 AND message_id = ?2)
                    """
            ),
            arguments: key
        )
        guard isHeld == true,
            let held = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT 0 AS acknowledged, sequence, received_at_ms, envelope AS content FROM mailbox_messages
                        WHERE sender = ?1 AND message_id = ?2
                        UNION ALL
                        SELECT 1, sequence, received_at_ms, tag FROM acknowledged_messages
                        WHERE sender = ?1 AND message_id = ?2
                        ORDER BY acknowledged LIMIT 1
                        """
                ),
                arguments: key
            )
        else { return nil }
        let content: Data = held["content"]
        let isSame =
            held["acknowledged"] as Int64 == 0
            ? content == Data(self.envelope.serialized) : content == Data(self.envelope.acknowledgementTag)
        guard isSame else {
            return .failure(
                WotsError(
                    .messageIDConflict,
                    "message id \(header.messageID.lowercasedString) was used by this sender for a different envelope"
                )
            )
        }
        return .success(Self.receipt(held))
    }

    private static func receipt(_ row: Row) -> MailboxReceipt {
        MailboxReceipt(
            sequence: row["sequence"],
            receivedAt: Date(millisecondsSince1970: row["received_at_ms"]),
            isNew: false
        )
    }
}
