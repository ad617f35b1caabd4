public import Foundation
import Logging
import PostgresNIO
public import WotsCore
public import WotsStorage

extension PostgresMailboxRepository: GroupMailboxRepository {
    public func appendGroup(
        _ envelope: GroupEnvelope,
        slots: [GroupSlot],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> GroupMailboxReceipt {
        let receivedAt = PostgresTime.stored(receivedAt)
        let logger = self.database.queryLogger
        let receipt = try await self.database.transaction(
            "store a group message for \(slots.count) recipients",
            // Two appends of one (sender, id) race on the body's key; the loser runs again and finds the winner's.
            retryingOn: ["group_bodies_pkey"]
        ) { connection in
            if let held = try await Self.heldReceipt(of: envelope, slots: slots, on: connection, logger: logger) {
                return held
            }
            let recipients = slots.map { ByteBuffer(bytes: $0.recipient.bytes) }
            // Counter rows are locked in recipient byte order (the header's order), so concurrent group messages
            // cannot deadlock and reach every mailbox they share in one order.
            try await connection.query(
                """
                INSERT INTO mailbox_counters (recipient, last_sequence, depth)
                SELECT r, 0, 0 FROM unnest(\(recipients)::bytea[]) AS r ORDER BY r
                ON CONFLICT (recipient) DO NOTHING
                """,
                logger: logger
            )
            let rows = try await connection.query(
                """
                SELECT c.recipient, c.last_sequence, c.depth + COALESCE(g.slots, 0), c.bytes + COALESCE(g.bytes, 0)
                FROM mailbox_counters AS c
                LEFT JOIN (
                    SELECT recipient, count(*) AS slots, sum(charged_bytes)::bigint AS bytes FROM group_slots
                    WHERE recipient = ANY(\(recipients)::bytea[]) GROUP BY recipient
                ) AS g ON g.recipient = c.recipient
                WHERE c.recipient = ANY(\(recipients)::bytea[])
                ORDER BY c.recipient
                FOR UPDATE OF c
                """,
                logger: logger
            ).collect()
            var last: [Token: Int64] = [:]
            let charged = envelope.chargedBytesPerSlot
            for row in rows {
                let (recipient, sequence, depth, bytes) = try row.decode((Data, Int64, Int64, Int64).self)
                let token = try Token(bytes: Array(recipient))
                guard depth < mailboxCapacity else {
                    throw WotsError(
                        .mailboxFull,
                        "mailbox of \(token) holds \(mailboxCapacity) messages already; nothing was stored"
                    )
                }
                guard charged <= Int64(mailboxQuota) - bytes else {
                    throw WotsError.quotaExceeded(recipient: token, envelopeSize: charged, quota: mailboxQuota)
                }
                last[token] = sequence
            }
            let sequences = try slots.map { slot in
                guard let sequence = last[slot.recipient] else {
                    throw WotsError(.storageCorrupted, "the mailbox counter of \(slot.recipient) is missing")
                }
                return sequence + 1
            }
            let header = envelope.header
            let expiresAt = envelope.mailboxExpiryMilliseconds.map {
                Date(timeIntervalSince1970: Double($0) / 1000)
            }
            try await connection.query(
                """
                INSERT INTO group_bodies (sender, message_id, received_at, expires_at, slots_waiting, body)
                VALUES (\(Data(header.sender.bytes)), \(header.messageID), \(receivedAt), \(expiresAt),
                    \(slots.count), \(Data(envelope.serialized)))
                """,
                logger: logger
            )
            let wrappedKeys = slots.map { ByteBuffer(bytes: $0.wrappedKey) }
            try await connection.query(
                """
                INSERT INTO group_slots (recipient, sequence, sender, message_id, wrapped_key, charged_bytes)
                SELECT r, s, \(Data(header.sender.bytes)), \(header.messageID), k, \(Int64(charged))
                FROM unnest(\(recipients)::bytea[], \(sequences)::bigint[], \(wrappedKeys)::bytea[]) AS t(r, s, k)
                """,
                logger: logger
            )
            try await connection.query(
                """
                UPDATE mailbox_counters SET last_sequence = last_sequence + 1
                WHERE recipient = ANY(\(recipients)::bytea[])
                """,
                logger: logger
            )
            return GroupMailboxReceipt(receivedAt: receivedAt, sequences: sequences)
        }
        // After the commit, as for 1:1 appends: other relay processes wake the recipients' sockets.
        if receipt.isNew {
            let nodeID = self.database.nodeID
            self.database.outgoingNotifications.send(
                zip(slots, receipt.sequences).map {
                    MailNotification(nodeID: nodeID, recipient: $0.recipient, sequence: $1).payload
                }
            )
        }
        return receipt
    }

    /// The first receipt when the same body is held already; a conflict for another body under the same key.
    private static func heldReceipt(
        of envelope: GroupEnvelope,
        slots: [GroupSlot],
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> GroupMailboxReceipt? {
        let header = envelope.header
        let sender = Data(header.sender.bytes)
        guard
            let row = try await connection.query(
                """
                SELECT received_at, body FROM group_bodies
                WHERE sender = \(sender) AND message_id = \(header.messageID)
                """,
                logger: logger
            ).collect().first
        else {
            return try await Self.rememberedReceipt(of: envelope, slots: slots, on: connection, logger: logger)
        }
        let (receivedAt, body) = try row.decode((Date, Data).self)
        guard Array(body) == envelope.serialized else {
            throw WotsError(
                .messageIDConflict,
                "message id \(header.messageID.lowercasedString) was used by this sender for another group message"
            )
        }
        var sequences: [Token: Int64] = [:]
        for row in try await connection.query(
            "SELECT recipient, sequence FROM group_slots WHERE sender = \(sender) AND message_id = \(header.messageID)",
            logger: logger
        ).collect() {
            let (recipient, sequence) = try row.decode((Data, Int64).self)
            sequences[try Token(bytes: Array(recipient))] = sequence
        }
        return GroupMailboxReceipt(
            receivedAt: PostgresTime.loaded(receivedAt),
            sequences: slots.map { sequences[$0.recipient] ?? 0 },
            isNew: false
        )
    }

    /// The first receipt of a group message whose last slot was acknowledged (every sequence 0: nothing waits); a
    /// conflict for another body under the same key; nil when nothing is remembered.
    private static func rememberedReceipt(
        of envelope: GroupEnvelope,
        slots: [GroupSlot],
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> GroupMailboxReceipt? {
        let header = envelope.header
        guard
            let row = try await connection.query(
                """
                SELECT received_at, tag FROM acknowledged_group_messages
                WHERE sender = \(Data(header.sender.bytes)) AND message_id = \(header.messageID)
                """,
                logger: logger
            ).collect().first
        else { return nil }
        let (receivedAt, tag) = try row.decode((Date, Data).self)
        guard Array(tag) == envelope.signature else {
            throw WotsError(
                .messageIDConflict,
                "message id \(header.messageID.lowercasedString) was used by this sender for another group message"
            )
        }
        return GroupMailboxReceipt(
            receivedAt: PostgresTime.loaded(receivedAt),
            sequences: [Int64](repeating: 0, count: slots.count),
            isNew: false
        )
    }
}
