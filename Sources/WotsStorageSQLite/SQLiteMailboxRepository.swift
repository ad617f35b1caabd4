public import Foundation
import GRDB
import Synchronization
public import WotsCore
public import WotsStorage

/// Store-and-forward mailboxes in SQLite.
///
/// Each recipient has a counter row (next sequence, depth), so sequences are strictly increasing and never reused.
/// Every change goes through the database's `MailboxPipeline`: appends and acknowledgements are written in the order
/// they were made, those that arrive while a transaction is being written share the next one (and its fsync), and a
/// recipient's messages are numbered, and visible to readers, before their commit.
public struct SQLiteMailboxRepository: MailboxRepository {
    /// Most messages one acknowledgement request stages at once, and one transaction deletes near the free-space
    /// reserve (`MailboxPipeline.acknowledgementLimit`).
    static let acknowledgementsPerTransaction = 100

    let database: SQLiteDatabase
    var pipeline: MailboxPipeline { self.database.mailboxPipeline }

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func append(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> MailboxReceipt {
        try await self.enqueueAppend(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota,
            announce: { _ in false }
        ).outcome()
    }

    public func enqueueAppend(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) async throws -> PendingWrite<MailboxReceipt> {
        try await self.database.requireFreeSpace()
        let request = AppendRequest(
            envelope: envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
        // Looked for in the database only when the pipeline holds no write of it (one it let go of was committed
        // before this read starts, so the read sees it) and its key filter cannot tell that it was never written.
        if self.pipeline.mustLookUp(envelope.header.messageKey),
            let held = try self.database.readNow("look for a sent message", { db in try request.heldReceipt(in: db) })
        {
            return .settled(held.mapError { $0 })
        }
        return self.pipeline.stageAppend(request, announce: announce)
    }

    public func enqueueAppendNow(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) throws -> PendingWrite<MailboxReceipt>? {
        guard self.database.isClearOfReserve() else { return nil }
        let request = AppendRequest(
            envelope: envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
        return self.pipeline.stageAppendUnlessLookUp(request, announce: announce)
    }

    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        guard !envelopes.isEmpty else { return [] }
        try await self.database.requireFreeSpace()
        let requests = envelopes.map {
            AppendRequest(
                envelope: $0,
                receivedAt: receivedAt,
                mailboxCapacity: mailboxCapacity,
                mailboxQuota: mailboxQuota
            )
        }
        return try await self.pipeline.stageExclusive(
            recipients: Set(envelopes.map(\.header.recipient)),
            keys: envelopes.map(\.header.messageKey)
        ) { db in
            try requests.map { try $0.store(in: db) }
        }.outcome()
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]
    {
        guard limit > 0 else { return [] }
        // Taken before the read: a message the pipeline lets go of after this was committed before it, so the read
        // has it.
        let pending = self.pipeline.pendingMessages(for: recipient, after: sequence, at: now)
        let written = try await self.written(for: recipient, after: sequence, limit: limit, at: now)
        guard !pending.isEmpty else { return written }
        var bySequence: [Int64: MailboxMessage] = [:]
        for message in written + pending { bySequence[message.sequence] = message }
        return Array(bySequence.values.sorted { $0.sequence < $1.sequence }.prefix(limit))
    }

    private func written(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]
    {
        let now = now.millisecondsSince1970
        return try await self.database.read("read a mailbox") { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT sequence, received_at_ms, envelope FROM mailbox_messages AS m
                        WHERE recipient = ? AND sequence > ? AND NOT EXISTS (
                            SELECT 1 FROM mailbox_expiries AS e
                            WHERE e.recipient = m.recipient AND e.sequence = m.sequence AND e.expires_at_ms <= ?
                        )
                        ORDER BY sequence
                        LIMIT ?
                        """
                ),
                arguments: [recipient.databaseBytes, sequence, now, limit]
            )
            return try rows.map { row in
                let sequence: Int64 = row["sequence"]
                let envelope: Envelope
                do {
                    envelope = try Envelope(serialized: [UInt8](row["envelope"] as Data))
                } catch {
                    throw WotsError(
                        .storageCorrupted,
                        "message \(sequence) of \(recipient) could not be decoded: \(error)"
                    )
                }
                return MailboxMessage(
                    sequence: sequence,
                    receivedAt: Date(millisecondsSince1970: row["received_at_ms"]),
                    envelope: envelope
                )
            }
        }
    }

    @discardableResult
    public func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey] {
        try await self.enqueueAcknowledge(keys, for: recipient, at: now).outcome()
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

    private func stageAcknowledgement(_ keys: [MessageKey], for recipient: Token, at now: Date)
        -> PendingWrite<[MessageKey]>
    {
        var seen = Set<MessageKey>()
        let unique = keys.filter { seen.insert($0).inserted }
        // Small transactions keep the write-ahead log small, so acknowledgements still fit on a nearly full disk.
        let writes = stride(from: 0, to: unique.count, by: Self.acknowledgementsPerTransaction).map { start in
            let chunk = Array(unique[start..<min(start + Self.acknowledgementsPerTransaction, unique.count)])
            return self.pipeline.stageAcknowledgement(chunk, for: recipient, at: now)
        }
        guard writes.count > 1 else { return writes.first ?? .settled(.success([])) }
        // A chunk whose messages were all acknowledged before their commit is answered before the others.
        let all = PendingWrite<[MessageKey]>()
        let unsettled = Mutex(writes.count)
        for write in writes {
            write.whenSettled { _ in
                guard
                    unsettled.withLock({ count in
                        count -= 1
                        return count == 0
                    })
                else { return }
                all.settle(Result { try writes.flatMap { try $0.settledValue() } })
            }
        }
        return all
    }

    public func depth(of recipient: Token) async throws -> Int {
        try await self.database.read("read a mailbox depth") { db in
            try Int.fetchOne(
                db,
                sql: "SELECT depth FROM mailbox_counters WHERE recipient = ?",
                arguments: [recipient.databaseBytes]
            ) ?? 0
        }
    }

    public func statistics() async throws -> MailboxStatistics {
        var statistics = try await self.database.read("read mailbox statistics") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COALESCE(SUM(depth), 0) AS waiting, COALESCE(MAX(depth), 0) AS deepest,
                        (SELECT count(*) FROM expiry_notices) AS notices
                    FROM mailbox_counters
                    """
            )
            return MailboxStatistics(
                waiting: row?["waiting"] ?? 0,
                deepest: row?["deepest"] ?? 0,
                expiryNotices: row?["notices"] ?? 0
            )
        }
        statistics.keyFilter = self.pipeline.keyFilterStatistics
        return statistics
    }

    public func deleteMailbox(of recipient: Token) async throws {
        try await self.database.write("delete a mailbox") { db in try MailboxWrite.deleteMailbox(of: recipient, in: db)
        }
        self.pipeline.invalidate([recipient])
    }

    @discardableResult
    public func forgetAcknowledgements(before cutoff: Date) async throws -> Int {
        try await self.database.write("forget old acknowledgements") { db in
            try db.execute(
                sql: "DELETE FROM acknowledged_messages WHERE acknowledged_at_ms < ?",
                arguments: [cutoff.millisecondsSince1970RoundedUp]
            )
            return db.changesCount
        }
    }
}
