public import Foundation
import Logging
import PostgresNIO
public import WotsCore
public import WotsStorage

extension PostgresMailboxRepository {
    public func groupMessages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [GroupMailboxMessage]
    {
        guard limit > 0 else { return [] }
        let now = PostgresTime.stored(now)
        let rows = try await self.database.withErrorMapping("read group messages") {
            try await self.database.client.query(
                """
                SELECT s.sequence, s.wrapped_key, b.received_at, b.body
                FROM group_slots AS s
                JOIN group_bodies AS b ON b.sender = s.sender AND b.message_id = s.message_id
                WHERE s.recipient = \(Data(recipient.bytes)) AND s.sequence > \(sequence)
                    AND (b.expires_at IS NULL OR b.expires_at > \(now))
                ORDER BY s.sequence LIMIT \(limit)
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        return try rows.map { row in
            do {
                let (sequence, slot, receivedAt, body) = try row.decode((Int64, Data, Date, Data).self)
                return GroupMailboxMessage(
                    sequence: sequence,
                    receivedAt: PostgresTime.loaded(receivedAt),
                    envelope: try GroupEnvelope(serialized: Array(body)),
                    slot: Array(slot)
                )
            } catch {
                throw WotsError(.storageCorrupted, "a stored group message for \(recipient) could not be decoded")
            }
        }
    }

    @discardableResult
    public func acknowledgeGroup(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws
        -> [MessageKey]
    {
        guard !keys.isEmpty else { return [] }
        let recipientBytes = Data(recipient.bytes)
        let senders = keys.map { ByteBuffer(bytes: $0.sender.bytes) }
        let ids = keys.map(\.id)
        let logger = self.database.queryLogger
        let deleted = try await self.database.transaction("acknowledge group messages") { connection in
            let rows = try await connection.query(
                """
                WITH wanted AS (
                    SELECT DISTINCT sender, message_id
                    FROM unnest(\(senders)::bytea[], \(ids)::uuid[]) AS w(sender, message_id)
                ), deleted AS (
                    DELETE FROM group_slots AS s USING wanted AS w
                    WHERE s.sender = w.sender AND s.message_id = w.message_id AND s.recipient = \(recipientBytes)
                    RETURNING s.sender, s.message_id
                )
                UPDATE group_bodies AS b SET slots_waiting = slots_waiting - 1
                FROM deleted AS d WHERE b.sender = d.sender AND b.message_id = d.message_id
                RETURNING b.sender, b.message_id, b.slots_waiting
                """,
                logger: logger
            ).collect().map { row in
                let (sender, id, waiting) = try row.decode((Data, UUID, Int).self)
                return (MessageKey(sender: try Token(bytes: Array(sender)), id: id), waiting)
            }
            try await Self.deleteEmptyBodies(
                rows.filter { $0.1 == 0 }.map(\.0),
                rememberingAt: PostgresTime.stored(now),
                on: connection,
                logger: logger
            )
            return rows.map(\.0)
        }
        let removed = Set(deleted)
        var reported = Set<MessageKey>()
        return keys.filter { removed.contains($0) && reported.insert($0).inserted }
    }

    @discardableResult
    public func deleteExpiredGroupMessages(at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let now = PostgresTime.stored(now)
        return try await self.deleteGroupBodies(
            "delete expired group messages",
            chosenBy: """
                SELECT sender, message_id FROM group_bodies WHERE expires_at IS NOT NULL AND expires_at <= \(now)
                ORDER BY expires_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """
        )
    }

    @discardableResult
    public func expireGroupMessages(receivedBefore cutoff: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await self.deleteGroupBodies(
            "expire old group messages",
            chosenBy: """
                SELECT sender, message_id FROM group_bodies WHERE received_at < \(cutoff)
                ORDER BY received_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """
        )
    }

    /// Deletes the bodies `doomed` selects (sender, message_id), and with them their slots; SKIP LOCKED leaves bodies
    /// another relay is deleting to it.
    private func deleteGroupBodies(_ purpose: String, chosenBy doomed: PostgresQuery) async throws -> Int {
        try await self.database.withErrorMapping(purpose) {
            var query: PostgresQuery = "WITH doomed AS ("
            query.sql += doomed.sql
            query.binds = doomed.binds
            query.sql += """
                ), deleted AS (
                    DELETE FROM group_bodies AS b USING doomed AS d
                    WHERE b.sender = d.sender AND b.message_id = d.message_id
                    RETURNING 1
                )
                SELECT count(*) FROM deleted
                """
            return try await self.database.client.query(query, logger: self.database.queryLogger)
                .collect().first?.decode(Int.self) ?? 0
        }
    }

    public func groupStatistics() async throws -> GroupStorageStatistics {
        try await self.database.withErrorMapping("read group message statistics") {
            let row = try await self.database.client.query(
                """
                SELECT (SELECT count(*) FROM group_bodies), (SELECT count(*) FROM group_slots),
                    (SELECT COALESCE(sum(octet_length(body)), 0)::bigint FROM group_bodies)
                """,
                logger: self.database.queryLogger
            ).collect().first
            guard let row else { return GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0) }
            let (bodies, slots, bytes) = try row.decode((Int64, Int64, Int64).self)
            return GroupStorageStatistics(bodies: Int(bodies), slots: Int(slots), bodyBytes: Int(bytes))
        }
    }

    /// Deletes every slot of a recipient (account deletion), and each body whose last slot that was.
    static func deleteGroupSlots(of recipient: Data, on connection: PostgresConnection, logger: Logger) async throws {
        let emptied = try await connection.query(
            """
            WITH deleted AS (
                DELETE FROM group_slots WHERE recipient = \(recipient) RETURNING sender, message_id
            )
            UPDATE group_bodies AS b SET slots_waiting = slots_waiting - 1
            FROM deleted AS d WHERE b.sender = d.sender AND b.message_id = d.message_id
            RETURNING b.sender, b.message_id, b.slots_waiting
            """,
            logger: logger
        ).collect().compactMap { row -> MessageKey? in
            let (sender, id, waiting) = try row.decode((Data, UUID, Int).self)
            return waiting == 0 ? MessageKey(sender: try Token(bytes: Array(sender)), id: id) : nil
        }
        try await Self.deleteEmptyBodies(emptied, on: connection, logger: logger)
    }

    /// Deletes the bodies of these messages (their last slot is gone); when the last slot was acknowledged
    /// (`rememberingAt` given), each is remembered as acknowledged then, by its signature (the body's last 256 bytes).
    private static func deleteEmptyBodies(
        _ keys: [MessageKey],
        rememberingAt acknowledgedAt: Date? = nil,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        guard !keys.isEmpty else { return }
        let senders = keys.map { ByteBuffer(bytes: $0.sender.bytes) }
        let ids = keys.map(\.id)
        guard let acknowledgedAt else {
            try await connection.query(
                """
                DELETE FROM group_bodies AS b
                USING unnest(\(senders)::bytea[], \(ids)::uuid[]) AS k(sender, message_id)
                WHERE b.sender = k.sender AND b.message_id = k.message_id AND b.slots_waiting = 0
                """,
                logger: logger
            )
            return
        }
        try await connection.query(
            """
            WITH gone AS (
                DELETE FROM group_bodies AS b
                USING unnest(\(senders)::bytea[], \(ids)::uuid[]) AS k(sender, message_id)
                WHERE b.sender = k.sender AND b.message_id = k.message_id AND b.slots_waiting = 0
                RETURNING b.sender, b.message_id, b.received_at, b.body
            )
            INSERT INTO acknowledged_group_messages (sender, message_id, received_at, tag, acknowledged_at)
            SELECT sender, message_id, received_at, wots_acknowledgement_tag(body), \(acknowledgedAt) FROM gone
            ON CONFLICT (sender, message_id) DO NOTHING
            """,
            logger: logger
        )
    }

    @discardableResult
    public func forgetAcknowledgedGroupMessages(before cutoff: Date) async throws -> Int {
        try await self.database.withErrorMapping("forget acknowledged group messages") {
            try await self.database.client.query(
                """
                WITH forgotten AS (
                    DELETE FROM acknowledged_group_messages WHERE acknowledged_at < \(cutoff) RETURNING 1
                )
                SELECT count(*) FROM forgotten
                """,
                logger: self.database.queryLogger
            ).collect().first?.decode(Int.self) ?? 0
        }
    }
}
