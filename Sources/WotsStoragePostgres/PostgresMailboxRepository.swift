public import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

/// Store-and-forward mailboxes in PostgreSQL.
///
/// An append locks the recipient's counter row, takes the next sequence from it and inserts the message in the same
/// transaction, so appends to one recipient serialise and commit in sequence order: a reader never sees a lower
/// sequence appear after a higher one. Concurrent appends through one repository are group-committed: those that
/// arrive while a transaction is being written share the next one, a single call of `wots_append_group`. Each
/// stored message is then announced with `NOTIFY wots_mail` (see `PostgresMailNotifications`) to other relay
/// processes.
public struct PostgresMailboxRepository: MailboxRepository {
    /// The `LISTEN/NOTIFY` channel that announces new mail.
    public static let notificationChannel = "wots_mail"

    let database: PostgresDatabase
    private let appends: GroupCommitQueue<MailboxAppend, MailboxReceipt>
    private let acknowledgements: GroupCommitQueue<Acknowledgement, [MessageKey]>
    private let unsettledAppends = UnsettledAppends()

    /// One `acknowledge` call's arguments.
    struct Acknowledgement: Sendable {
        var keys: [MessageKey]
        var recipient: Token
        var now: Date
    }

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
        self.appends = GroupCommitQueue(deadline: database.configuration.operationTimeout) { appends in
            try await Self.store(appends, in: database)
        }
        self.acknowledgements = GroupCommitQueue(deadline: database.configuration.operationTimeout) { requests in
            try await Self.acknowledge(requests, in: database)
        }
    }

    public func append(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> MailboxReceipt {
        try await self.enqueue(
            MailboxAppend(
                envelope: envelope,
                receivedAt: receivedAt,
                mailboxCapacity: mailboxCapacity,
                mailboxQuota: mailboxQuota
            )
        ).outcome()
    }

    /// Takes an append into the group commit, and holds it for the acknowledgements of its message until it settles.
    private func enqueue(_ append: MailboxAppend) -> PendingWrite<MailboxReceipt> {
        let write = self.appends.enqueue(append)
        self.unsettledAppends.track(append.envelope.header.messageKey, write)
        return write
    }

    public func enqueueAppend(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) async throws -> PendingWrite<MailboxReceipt> {
        self.stageAppend(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota,
            announce: announce
        )
    }

    public func enqueueAppendNow(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) throws -> PendingWrite<MailboxReceipt>? {
        self.stageAppend(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota,
            announce: announce
        )
    }

    private func stageAppend(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) -> PendingWrite<MailboxReceipt> {
        // Numbered by PostgreSQL inside the transaction (several relay processes may share the counters), so a new
        // message is announced only once committed.
        self.enqueue(
            MailboxAppend(
                envelope: envelope,
                receivedAt: receivedAt,
                mailboxCapacity: mailboxCapacity,
                mailboxQuota: mailboxQuota
            )
        ).map { receipt in
            if receipt.isNew {
                _ = announce(
                    MailboxMessage(sequence: receipt.sequence, receivedAt: receipt.receivedAt, envelope: envelope)
                )
            }
            return receipt
        }
    }

    public func enqueueAcknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws
        -> PendingWrite<[MessageKey]>
    {
        self.stageAcknowledgement(keys, for: recipient, at: now)
    }

    public func enqueueAcknowledgeNow(_ keys: [MessageKey], for recipient: Token, at now: Date) throws
        -> PendingWrite<[MessageKey]>?
    {
        self.stageAcknowledgement(keys, for: recipient, at: now)
    }

    /// Group-committed like appends: a stream hands over acknowledgements without waiting for each, and one
    /// transaction per acknowledgement would take a pooled connection each. One that names a message whose append is
    /// still unsettled is taken once it settled, so that it applies after it.
    private func stageAcknowledgement(_ keys: [MessageKey], for recipient: Token, at now: Date)
        -> PendingWrite<[MessageKey]>
    {
        let request = Acknowledgement(keys: keys, recipient: recipient, now: now)
        let awaited = self.unsettledAppends.unsettled(of: keys)
        guard !awaited.isEmpty else { return self.acknowledgements.enqueue(request) }
        let acknowledged = PendingWrite<[MessageKey]>()
        UnsettledAppends.whenAllSettled(awaited) { [acknowledgements] in
            acknowledgements.enqueue(request).whenSettled { acknowledged.settle($0) }
        }
        return acknowledged
    }

    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        guard !envelopes.isEmpty else { return [] }
        let appends = envelopes.map {
            MailboxAppend(
                envelope: $0,
                receivedAt: receivedAt,
                mailboxCapacity: mailboxCapacity,
                mailboxQuota: mailboxQuota
            )
        }
        return try await Self.store(appends, in: self.database)
    }

    /// Appends in one transaction, in order, then notifies other relays of the stored messages.
    private static func store(
        _ appends: [MailboxAppend],
        in database: PostgresDatabase
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        let (outcomes, notifications) = try await database.pipelinedTransaction(
            "store messages",
            // Two appends of one (sender, id) to different recipients lock different counters and race on the
            // unique key; the loser runs again and then finds the winner's message.
            retryingOn: ["mailbox_messages_sender_message_id_key"],
            [MailboxAppend.query(appends)]
        ) { rows in
            try MailboxAppend.outcomes(of: appends, from: rows[0], nodeID: database.nodeID)
        }
        // After the commit, never inside it: PostgreSQL commits transactions that issued NOTIFY one at a time, so
        // notifying inside the append would serialise every durable write.
        database.outgoingNotifications.send(notifications.map(\.payload))
        return outcomes
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]
    {
        guard limit > 0 else { return [] }
        let now = PostgresTime.stored(now)
        let rows = try await self.database.withErrorMapping("read a mailbox") {
            try await self.database.client.query(
                """
                SELECT sequence, received_at, envelope FROM mailbox_messages AS m
                WHERE recipient = \(Data(recipient.bytes)) AND sequence > \(sequence) AND NOT EXISTS (
                    SELECT 1 FROM mailbox_expiries AS e
                    WHERE e.recipient = m.recipient AND e.sequence = m.sequence AND e.expires_at <= \(now)
                )
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
                throw WotsError(.storageCorrupted, "a stored message for \(recipient) could not be decoded")
            }
        }
    }

    @discardableResult
    public func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey] {
        guard !keys.isEmpty else { return [] }
        return try await self.stageAcknowledgement(keys, for: recipient, at: now).outcome()
    }

    /// Acknowledgements in one transaction of two statements, however many: the counters of their recipients are
    /// locked first, in byte order (as appends lock them, so two relays never wait on each other in a circle), then
    /// every key is deleted, remembered and counted in one statement. A statement per acknowledgement made a stream of
    /// one acknowledgement per message hold the counters for as many round trips while appends waited for them.
    /// - Returns: one outcome per request, in the order given; a key asked for twice is reported to the first asker.
    private static func acknowledge(
        _ requests: [Acknowledgement],
        in database: PostgresDatabase
    ) async throws -> [Result<[MessageKey], WotsError>] {
        var wanted: [(recipient: Token, key: MessageKey)] = []
        var seen = Set<AcknowledgedKey>()
        for request in requests {
            for key in request.keys where seen.insert(AcknowledgedKey(recipient: request.recipient, key: key)).inserted
            {
                wanted.append((request.recipient, key))
            }
        }
        guard !wanted.isEmpty else { return requests.map { _ in .success([]) } }
        let now = requests.map(\.now).max() ?? Date()
        let deleted = try await database.pipelinedTransaction(
            "acknowledge messages",
            [Self.deletion(of: wanted, at: now)]
        ) { rows in
            try Self.acknowledgedKeys(in: rows[0])
        }
        var reported = Set<AcknowledgedKey>()
        return requests.map { request in
            .success(
                request.keys.filter { key in
                    let acknowledged = AcknowledgedKey(recipient: request.recipient, key: key)
                    return deleted.contains(acknowledged) && reported.insert(acknowledged).inserted
                }
            )
        }
    }

    /// A message key as one recipient acknowledged it.
    private struct AcknowledgedKey: Hashable {
        var recipient: Token
        var key: MessageKey
    }

    /// The statement that deletes, remembers and counts the acknowledged messages (`wots_acknowledge`, migration
    /// 0013), returning the keys it deleted.
    private static func deletion(of wanted: [(recipient: Token, key: MessageKey)], at now: Date) -> PostgresQuery {
        let recipients = wanted.map { ByteBuffer(bytes: $0.recipient.bytes) }
        let senders = wanted.map { ByteBuffer(bytes: $0.key.sender.bytes) }
        let ids = wanted.map(\.key.id)
        return "SELECT * FROM wots_acknowledge(\(recipients), \(senders), \(ids), \(now))"
    }

    private static func acknowledgedKeys(in rows: [PostgresRow]) throws -> Set<AcknowledgedKey> {
        var deleted = Set<AcknowledgedKey>()
        for row in rows {
            let (recipient, sender, id) = try row.decode((Data, Data, UUID).self)
            deleted.insert(
                AcknowledgedKey(
                    recipient: try Token(bytes: Array(recipient)),
                    key: MessageKey(sender: try Token(bytes: Array(sender)), id: id)
                )
            )
        }
        return deleted
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
                """
                SELECT COALESCE(SUM(depth), 0)::BIGINT, COALESCE(MAX(depth), 0)::BIGINT,
                    (SELECT count(*) FROM expiry_notices)
                FROM mailbox_counters
                """,
                logger: self.database.queryLogger
            ).collect().first
            guard let row else { return MailboxStatistics(waiting: 0, deepest: 0) }
            let (waiting, deepest, notices) = try row.decode((Int64, Int64, Int64).self)
            return MailboxStatistics(waiting: Int(waiting), deepest: Int(deepest), expiryNotices: Int(notices))
        }
    }

    public func deleteMailbox(of recipient: Token) async throws {
        let recipientBytes = Data(recipient.bytes)
        let logger = self.database.queryLogger
        try await self.database.transaction("delete a mailbox") { connection in
            try await Self.deleteGroupSlots(of: recipientBytes, on: connection, logger: logger)
            // The counter row stays (depth 0) so the recipient's sequence numbers are never handed out again.
            try await connection.query(
                "UPDATE mailbox_counters SET depth = 0, bytes = 0 WHERE recipient = \(recipientBytes)",
                logger: self.database.queryLogger
            )
            try await connection.query(
                "DELETE FROM mailbox_messages WHERE recipient = \(recipientBytes)",
                logger: self.database.queryLogger
            )
            try await connection.query(
                "DELETE FROM acknowledged_messages WHERE recipient = \(recipientBytes)",
                logger: self.database.queryLogger
            )
            try await connection.query(
                "DELETE FROM expiry_notices WHERE sender = \(recipientBytes)",
                logger: self.database.queryLogger
            )
        }
    }

    @discardableResult
    public func forgetAcknowledgements(before cutoff: Date) async throws -> Int {
        try await self.database.withErrorMapping("forget old acknowledgements") {
            try await self.database.client.query(
                """
                WITH forgotten AS (DELETE FROM acknowledged_messages WHERE acknowledged_at < \(cutoff) RETURNING 1)
                SELECT count(*) FROM forgotten
                """,
                logger: self.database.queryLogger
            ).collect().first?.decode(Int.self) ?? 0
        }
    }
}
