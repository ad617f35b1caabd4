import Foundation
import GRDB
import WotsCore
import WotsStorage

/// One `append` call's arguments.
struct AppendRequest: Sendable {
    var envelope: Envelope
    var receivedAt: Date
    var mailboxCapacity: Int
}

/// A mailbox change that may share a group-committed transaction with others.
enum MailboxWrite: Sendable {
    case append(AppendRequest)
    case acknowledge([UUID], recipient: Token)

    enum Outcome: Sendable {
        case stored(MailboxReceipt)
        case acknowledged(Int)
    }

    /// Performs the change inside the caller's transaction. A refusal of this write alone is a failure result; a
    /// thrown error fails the whole transaction.
    func perform(in db: Database) throws -> Result<Outcome, WotsError> {
        switch self {
        case .append(let request):
            return try request.store(in: db).map(Outcome.stored)
        case .acknowledge(let ids, let recipient):
            return .success(.acknowledged(try Self.acknowledge(ids, for: recipient, in: db)))
        }
    }

    private static func acknowledge(_ ids: [UUID], for recipient: Token, in db: Database) throws -> Int {
        let delete = try db.cachedStatement(sql: "DELETE FROM mailbox_messages WHERE recipient = ? AND message_id = ?")
        var deleted = 0
        for id in ids {
            try delete.execute(arguments: [recipient.databaseBytes, id.databaseBytes])
            deleted += db.changesCount
        }
        if deleted > 0 {
            try db.cachedStatement(sql: "UPDATE mailbox_counters SET depth = depth - ? WHERE recipient = ?")
                .execute(arguments: [deleted, recipient.databaseBytes])
        }
        return deleted
    }
}

extension AppendRequest {
    /// Stores the envelope inside the caller's transaction, or says why not.
    func store(in db: Database) throws -> Result<MailboxReceipt, WotsError> {
        let header = self.envelope.header
        let serialized = Data(self.envelope.serialized)
        let recipient = header.recipient.databaseBytes
        if let existing = try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT sequence, received_at_ms, envelope FROM mailbox_messages WHERE sender = ? AND message_id = ?"
            ),
            arguments: [header.sender.databaseBytes, header.messageID.databaseBytes]
        ) {
            guard existing["envelope"] as Data == serialized else {
                return .failure(
                    WotsError(
                        .messageIDConflict,
                        "message id \(header.messageID) was used by this sender for a different envelope"
                    )
                )
            }
            return .success(
                MailboxReceipt(
                    sequence: existing["sequence"],
                    receivedAt: Date(millisecondsSince1970: existing["received_at_ms"])
                )
            )
        }
        let counter = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT next_sequence, depth FROM mailbox_counters WHERE recipient = ?"),
            arguments: [recipient]
        )
        let sequence: Int64 = counter?["next_sequence"] ?? 1
        let depth: Int = counter?["depth"] ?? 0
        guard depth < self.mailboxCapacity else {
            return .failure(
                WotsError(
                    .mailboxFull,
                    "mailbox of \(header.recipient) holds \(self.mailboxCapacity) messages already"
                )
            )
        }
        let receivedAt = self.receivedAt.millisecondsSince1970
        try db.cachedStatement(
            sql: """
                INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at_ms, envelope)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                recipient, sequence, header.sender.databaseBytes, header.messageID.databaseBytes, receivedAt,
                serialized,
            ]
        )
        try db.cachedStatement(
            sql: """
                INSERT INTO mailbox_counters (recipient, next_sequence, depth) VALUES (?, ?, ?)
                ON CONFLICT (recipient) DO UPDATE SET next_sequence = excluded.next_sequence, depth = excluded.depth
                """
        ).execute(arguments: [recipient, sequence + 1, depth + 1])
        return .success(MailboxReceipt(sequence: sequence, receivedAt: Date(millisecondsSince1970: receivedAt)))
    }
}
