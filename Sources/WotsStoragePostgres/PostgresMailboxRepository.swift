public import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

/// Store-and-forward mailboxes in PostgreSQL.
///
/// An append locks the recipient's counter row, takes the next sequence from it and inserts the message in the same
/// transaction, so appends to one recipient serialise and commit in sequence order: a reader never sees a lower
/// sequence appear after a higher one. Each append also sends `NOTIFY wots_mail` (see `PostgresMailNotifications`),
/// delivered to other relay processes when the transaction commits.
public struct PostgresMailboxRepository: MailboxRepository {
    /// The `LISTEN/NOTIFY` channel that announces new mail.
    public static let notificationChannel = "wots_mail"

    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int) async throws -> MailboxReceipt {
        let outcomes = try await self.append(
            batch: [envelope],
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity
        )
        return try outcomes[0].get()
    }

    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int
    ) async throws -> [Result<MailboxReceipt, StorageError>] {
        guard !envelopes.isEmpty else { return [] }
        let receivedAt = PostgresTime.stored(receivedAt)
        // Locking every recipient's counter first, in one order, keeps concurrent batches from deadlocking.
        let recipients = Set(envelopes.map(\.header.recipient)).sorted()
        let (outcomes, notifications) = try await self.database.transaction(
            "store a message",
            // Two appends of one (sender, id) to different recipients lock different counters and race on the
            // unique key; the loser runs again and then finds the winner's message.
            retryingOn: ["mailbox_messages_sender_message_id_key"]
        ) { connection in
            for recipient in recipients {
                try await connection.query(
                    """
                    INSERT INTO mailbox_counters (recipient, last_sequence, depth)
                    VALUES (\(Data(recipient.bytes)), 0, 0)
                    ON CONFLICT (recipient) DO UPDATE SET last_sequence = mailbox_counters.last_sequence
                    """,
                    logger: self.database.queryLogger
                )
            }
            var outcomes: [Result<MailboxReceipt, StorageError>] = []
            var notifications: [String] = []
            outcomes.reserveCapacity(envelopes.count)
            for envelope in envelopes {
                outcomes.append(
                    try await self.appendLocked(
                        envelope,
                        receivedAt: receivedAt,
                        mailboxCapacity: mailboxCapacity,
                        notifications: &notifications,
                        on: connection
                    )
                )
            }
            return (outcomes, notifications)
        }
        await self.notify(notifications)
        return outcomes
    }

    /// Tells other relay processes about new mail after the commit. PostgreSQL commits transactions that issued
    /// NOTIFY one at a time, so notifying inside the append would serialise every durable write; a notification
    /// lost here (the process dies between commit and notify) only delays live delivery until the next resync.
    private func notify(_ payloads: [String]) async {
        guard !payloads.isEmpty else { return }
        do {
            try await self.database.client.query(
                "SELECT pg_notify(\(Self.notificationChannel), payload) FROM unnest(\(payloads)::text[]) AS payload",
                logger: self.database.queryLogger
            )
        } catch {
            self.database.logger.warning(
                "could not notify other relays of new mail",
                metadata: ["messages": "\(payloads.count)", "error": "\(String(reflecting: type(of: error)))"]
            )
        }
    }

    /// Appends one envelope inside the batch's transaction, its recipient's counter row already locked.
    private func appendLocked(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        notifications: inout [String],
        on connection: PostgresConnection
    ) async throws -> Result<MailboxReceipt, StorageError> {
        let header = envelope.header
        let serialized = Data(envelope.serialized)
        let sender = Data(header.sender.bytes)
        let recipient = Data(header.recipient.bytes)

        let earlier = try await connection.query(
            """
            SELECT sequence, received_at, envelope = \(serialized)
            FROM mailbox_messages WHERE sender = \(sender) AND message_id = \(header.messageID)
            """,
            logger: self.database.queryLogger
        ).collect()
        if let row = earlier.first {
            let (sequence, receivedAt, sameEnvelope) = try row.decode((Int64, Date, Bool).self)
            guard sameEnvelope else {
                return .failure(
                    StorageError(
                        .messageIDConflict,
                        "message id \(header.messageID) was used by this sender for a different envelope"
                    )
                )
            }
            return .success(MailboxReceipt(sequence: sequence, receivedAt: PostgresTime.loaded(receivedAt)))
        }

        let depth =
            try await connection.query(
                "SELECT depth FROM mailbox_counters WHERE recipient = \(recipient)",
                logger: self.database.queryLogger
            ).collect().first?.decode(Int.self) ?? 0
        guard depth < mailboxCapacity else {
            return .failure(
                StorageError(
                    .mailboxFull,
                    "the mailbox of \(header.recipient) holds \(depth) messages (at most \(mailboxCapacity))"
                )
            )
        }

        guard
            let sequence = try await connection.query(
                """
                UPDATE mailbox_counters SET last_sequence = last_sequence + 1, depth = depth + 1
                WHERE recipient = \(recipient)
                RETURNING last_sequence
                """,
                logger: self.database.queryLogger
            ).collect().first?.decode(Int64.self)
        else {
            throw StorageError(.corrupted, "the mailbox counter of \(header.recipient) vanished inside a transaction")
        }
        try await connection.query(
            """
            INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at, envelope)
            VALUES (\(recipient), \(sequence), \(sender), \(header.messageID), \(receivedAt), \(serialized))
            """,
            logger: self.database.queryLogger
        )
        let notification = MailNotification(
            nodeID: self.database.nodeID,
            recipient: header.recipient,
            sequence: sequence
        )
        notifications.append(notification.payload)
        return .success(MailboxReceipt(sequence: sequence, receivedAt: receivedAt))
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int) async throws -> [MailboxMessage] {
        guard limit > 0 else { return [] }
        let rows = try await self.database.withErrorMapping("read a mailbox") {
            try await self.database.client.query(
                """
                SELECT sequence, received_at, envelope FROM mailbox_messages
                WHERE recipient = \(Data(recipient.bytes)) AND sequence > \(sequence)
                ORDER BY sequence LIMIT \(limit)
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        return try rows.map { row in
            do {
                let (sequence, receivedAt, envelope) = try row.decode((Int64, Date, Data).self)
                return MailboxMessage(
                    sequence: sequence,
                    receivedAt: PostgresTime.loaded(receivedAt),
                    envelope: try Envelope(serialized: Array(envelope))
                )
            } catch {
                throw StorageError(.corrupted, "a stored message for \(recipient) could not be decoded")
            }
        }
    }

    @discardableResult
    public func acknowledge(_ messageIDs: [UUID], for recipient: Token) async throws -> Int {
        guard !messageIDs.isEmpty else { return 0 }
        let recipientBytes = Data(recipient.bytes)
        return try await self.database.transaction("acknowledge messages") { connection in
            let deleted = try await connection.query(
                """
                DELETE FROM mailbox_messages WHERE recipient = \(recipientBytes) AND message_id = ANY(\(messageIDs))
                RETURNING 1
                """,
                logger: self.database.queryLogger
            ).collect().count
            if deleted > 0 {
                try await connection.query(
                    "UPDATE mailbox_counters SET depth = depth - \(deleted) WHERE recipient = \(recipientBytes)",
                    logger: self.database.queryLogger
                )
            }
            return deleted
        }
    }

    public func depth(of recipient: Token) async throws -> Int {
        try await self.database.withErrorMapping("read a mailbox's depth") {
            try await self.database.client.query(
                "SELECT depth FROM mailbox_counters WHERE recipient = \(Data(recipient.bytes))",
                logger: self.database.queryLogger
            ).collect().first?.decode(Int.self) ?? 0
        }
    }

    public func statistics() async throws -> MailboxStatistics {
        try await self.database.withErrorMapping("read mailbox statistics") {
            let row = try await self.database.client.query(
                "SELECT COALESCE(SUM(depth), 0)::BIGINT, COALESCE(MAX(depth), 0)::BIGINT FROM mailbox_counters",
                logger: self.database.queryLogger
            ).collect().first
            guard let row else { return MailboxStatistics(waiting: 0, deepest: 0) }
            let (waiting, deepest) = try row.decode((Int64, Int64).self)
            return MailboxStatistics(waiting: Int(waiting), deepest: Int(deepest))
        }
    }

    public func deleteMailbox(of recipient: Token) async throws {
        let recipientBytes = Data(recipient.bytes)
        try await self.database.transaction("delete a mailbox") { connection in
            // The counter row stays (depth 0) so the recipient's sequence numbers are never handed out again.
            try await connection.query(
                "UPDATE mailbox_counters SET depth = 0 WHERE recipient = \(recipientBytes)",
                logger: self.database.queryLogger
            )
            try await connection.query(
                "DELETE FROM mailbox_messages WHERE recipient = \(recipientBytes)",
                logger: self.database.queryLogger
            )
        }
    }

    @discardableResult
    public func sweep(receivedBefore cutoff: Date) async throws -> Int {
        try await self.database.transaction("sweep old messages") { connection in
            try await connection.query(
                """
                WITH deleted AS (
                    DELETE FROM mailbox_messages WHERE received_at < \(cutoff) RETURNING recipient
                ), counts AS (
                    SELECT recipient, count(*) AS removed FROM deleted GROUP BY recipient
                ), updated AS (
                    UPDATE mailbox_counters SET depth = mailbox_counters.depth - counts.removed
                    FROM counts WHERE mailbox_counters.recipient = counts.recipient
                    RETURNING 1
                )
                SELECT coalesce(sum(removed), 0)::bigint FROM counts
                """,
                logger: self.database.queryLogger
            ).collect().first?.decode(Int.self) ?? 0
        }
    }
}
