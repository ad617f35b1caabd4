public import Foundation
public import WotsCore

/// What a mailbox said when it took an envelope: the recipient's sequence number and the relay's receive time.
///
/// Equality ignores `isNew`: a retried send gets the same receipt as the first.
public struct MailboxReceipt: Sendable, Hashable {
    /// Per-recipient, strictly increasing from 1, never reused, even after acknowledgement.
    public var sequence: Int64
    public var receivedAt: Date
    /// Whether this call stored the message. False when the same envelope was held already, waiting or acknowledged
    /// within the remembered window: then nothing was stored and nobody must be offered it again.
    public var isNew: Bool

    public init(sequence: Int64, receivedAt: Date, isNew: Bool = true) {
        self.sequence = sequence
        self.receivedAt = receivedAt
        self.isNew = isNew
    }

    public static func == (lhs: MailboxReceipt, rhs: MailboxReceipt) -> Bool {
        lhs.sequence == rhs.sequence && lhs.receivedAt == rhs.receivedAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.sequence)
        hasher.combine(self.receivedAt)
    }
}

/// An envelope waiting in a mailbox.
public struct MailboxMessage: Sendable, Hashable {
    public var sequence: Int64
    public var receivedAt: Date
    public var envelope: Envelope

    public init(sequence: Int64, receivedAt: Date, envelope: Envelope) {
        self.sequence = sequence
        self.receivedAt = receivedAt
        self.envelope = envelope
    }
}

/// How much mail waits, over every mailbox: for the relay's metrics.
public struct MailboxStatistics: Sendable, Hashable {
    /// Messages waiting in all mailboxes together.
    public var waiting: Int
    /// The depth of the fullest mailbox.
    public var deepest: Int
    /// Expiry notices held for senders, not yet cleared or forgotten.
    public var expiryNotices: Int
    /// The filter that spares the duplicate lookup of a new (sender, id), where the repository keeps one.
    public var keyFilter: MessageKeyFilterStatistics?

    public init(waiting: Int, deepest: Int, expiryNotices: Int = 0, keyFilter: MessageKeyFilterStatistics? = nil) {
        self.waiting = waiting
        self.deepest = deepest
        self.expiryNotices = expiryNotices
        self.keyFilter = keyFilter
    }
}

/// What a repository's filter of written message keys holds, and how many duplicate lookups it spared since the
/// process started.
public struct MessageKeyFilterStatistics: Sendable, Hashable {
    /// Keys put in the filter (a key taken twice counts twice); 0 until its first scan ends.
    public var keys: Int
    /// The filter's memory; 0 until its first scan ends.
    public var bytes: Int
    /// Appends whose (sender, id) was looked for in the database.
    public var lookupsMade: Int
    /// Appends whose (sender, id) was not: the filter knew it new, or a write of it was still held.
    public var lookupsSpared: Int

    public init(keys: Int, bytes: Int, lookupsMade: Int, lookupsSpared: Int) {
        self.keys = keys
        self.bytes = bytes
        self.lookupsMade = lookupsMade
        self.lookupsSpared = lookupsSpared
    }
}

/// Store-and-forward mailboxes, one per recipient token.
public protocol MailboxRepository: Sendable {
    /// Durably stores an envelope in its recipient's mailbox before returning.
    ///
    /// Idempotent by (sender, message id): the same envelope again returns the first receipt (`isNew` false) and
    /// stores nothing, while the message waits and for as long after its acknowledgement as the repository remembers
    /// it (until `forgetAcknowledgements(before:)` drops it). Envelopes are the same when their bytes are; once
    /// acknowledged, only the signature is kept to tell (an envelope's signature covers all its other bytes).
    /// - Parameter receivedAt: the receive time recorded in a new receipt (milliseconds are kept).
    /// - Parameter mailboxCapacity: how many unacknowledged messages the recipient may hold.
    /// - Parameter mailboxQuota: how many bytes of serialized envelopes the recipient may hold, this one included;
    ///   checked in the transaction that stores it.
    /// - Throws: `WotsError.messageIDConflict` when the sender used the id for a different envelope,
    ///   `.mailboxFull` when the recipient already holds `mailboxCapacity` messages, `.mailboxQuotaExceeded` when
    ///   this envelope would take the recipient past `mailboxQuota` bytes.
    func append(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> MailboxReceipt

    /// Stores many envelopes in one transaction; one outcome per envelope, in order, each as `append` would give.
    func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>]

    /// `append` in two steps: returns once the envelope has its place in the store's order, so envelopes one caller
    /// enqueues one after another are stored (and numbered) in that order; `outcome()` of the result then waits for
    /// the commit, with what `append` would return or throw.
    ///
    /// `announce` is called once with the stored message when it is new, as soon as readers can see it: on a store
    /// that numbers messages before it commits them (SQLite, in one process) that is before the commit, so a recipient
    /// online can be handed it at once; otherwise after the commit. A message announced before a commit that then
    /// fails may have been read: its sender is told of the failure and retries with the same id (at-least-once).
    /// `announce` returns whether a reader was handed the message (see `Announcement`).
    func enqueueAppend(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) async throws -> PendingWrite<MailboxReceipt>

    /// `acknowledge` in two steps, as `enqueueAppend`: an acknowledgement enqueued after an append of the same key
    /// applies after it. A message acknowledged before its own commit is never written as waiting: only what a
    /// retried send needs to get its first receipt is kept.
    func enqueueAcknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws
        -> PendingWrite<[MessageKey]>

    /// `enqueueAppend` without suspending, for a caller on a socket's event loop: nil when the store would have to
    /// wait first (a database read, a check of the disk's free space), and then nothing was done and `announce` is
    /// never called; the caller goes on with `enqueueAppend`.
    func enqueueAppendNow(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) throws -> PendingWrite<MailboxReceipt>?

    /// `enqueueAcknowledge` without suspending, as `enqueueAppendNow`: nil when the store would have to wait first,
    /// and then nothing was done.
    func enqueueAcknowledgeNow(_ keys: [MessageKey], for recipient: Token, at now: Date) throws
        -> PendingWrite<[MessageKey]>?

    /// Up to `limit` of the recipient's messages with a sequence number above `sequence`, in sequence order, leaving
    /// out those whose envelope's `expiresAt` has come by `now` (whether or not `deleteExpired` removed them yet).
    func messages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]

    /// Deletes the recipient's messages with these keys and remembers them as acknowledged at `now`; keys of other
    /// mailboxes, and keys named twice, count once or not at all.
    /// - Returns: the keys whose messages were deleted by this call, in the order given.
    @discardableResult
    func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey]

    /// How many messages wait in the recipient's mailbox.
    func depth(of recipient: Token) async throws -> Int

    /// Totals over every mailbox.
    func statistics() async throws -> MailboxStatistics

    /// Removes every message of the recipient's mailbox, what is remembered of its acknowledged ones, and the expiry
    /// notices held for it as a sender (account deletion).
    func deleteMailbox(of recipient: Token) async throws

    /// Forgets acknowledged messages acknowledged before `cutoff`: a retried send of one of them is stored again.
    /// - Returns: how many were forgotten.
    @discardableResult
    func forgetAcknowledgements(before cutoff: Date) async throws -> Int

    /// Deletes up to `limit` of the oldest messages received before `cutoff`, in one transaction, and leaves an
    /// expiry notice for each one's sender (replacing an older notice of the same sender and id). Messages another
    /// process is expiring or acknowledging at the same moment are left to it, so no message yields two notices.
    /// - Returns: how many messages expired; fewer than `limit` means none older than `cutoff` is left.
    @discardableResult
    func expire(receivedBefore cutoff: Date, at now: Date, limit: Int) async throws -> Int

    /// Deletes up to `limit` messages whose envelope's `expiresAt` has come by `now`, in one transaction, and leaves
    /// no notice: their senders asked for them to vanish. Acknowledged-message memory is not touched.
    /// - Returns: how many messages were deleted; fewer than `limit` means none that expired by `now` is left.
    @discardableResult
    func deleteExpired(at now: Date, limit: Int) async throws -> Int

    /// Up to `limit` of the sender's expiry notices, oldest expiry first (then by message id).
    func expiryNotices(for sender: Token, limit: Int) async throws -> [ExpiryNotice]

    /// Deletes the sender's expiry notices for these message ids.
    /// - Returns: the ids whose notices were deleted by this call, in the order given, each once.
    @discardableResult
    func clearExpiryNotices(_ messageIDs: [UUID], for sender: Token) async throws -> [UUID]

    /// Deletes expiry notices of messages that expired before `cutoff`, cleared or not.
    /// - Returns: how many were deleted.
    @discardableResult
    func forgetExpiryNotices(before cutoff: Date) async throws -> Int
}

/// Hands a newly stored message to whoever reads the recipient's mailbox live.
/// - Returns: whether a reader was handed it, so that its acknowledgement may follow soon: a store that numbers
///   messages before it commits them waits a little for that acknowledgement before writing the message, and does
///   not write a message acknowledged meanwhile as waiting.
public typealias Announcement = @Sendable (MailboxMessage) -> Bool

extension MailboxReceipt {
    /// The write of a store that appended before answering: a new message is announced, a retry is not.
    func settledAnnouncingIfNew(_ envelope: Envelope, to announce: Announcement) -> PendingWrite<MailboxReceipt> {
        if self.isNew {
            _ = announce(MailboxMessage(sequence: self.sequence, receivedAt: self.receivedAt, envelope: envelope))
        }
        return .settled(.success(self))
    }
}

extension MailboxRepository {
    /// `messages(for:after:limit:at:)` as of the current time.
    public func messages(for recipient: Token, after sequence: Int64, limit: Int) async throws -> [MailboxMessage] {
        try await self.messages(for: recipient, after: sequence, limit: limit, at: Date())
    }

    /// Appends, then announces a new message: for stores without an order of their own to hand out early.
    public func enqueueAppend(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) async throws -> PendingWrite<MailboxReceipt> {
        let receipt = try await self.append(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
        return receipt.settledAnnouncingIfNew(envelope, to: announce)
    }

    /// Acknowledges now: for stores without an order of their own.
    public func enqueueAcknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws
        -> PendingWrite<[MessageKey]>
    {
        .settled(.success(try await self.acknowledge(keys, for: recipient, at: now)))
    }

    /// Stores without an order of their own always wait for their write.
    public func enqueueAppendNow(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) throws -> PendingWrite<MailboxReceipt>? { nil }

    public func enqueueAcknowledgeNow(_ keys: [MessageKey], for recipient: Token, at now: Date) throws
        -> PendingWrite<[MessageKey]>?
    { nil }

    /// `append` with no byte quota.
    public func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int) async throws -> MailboxReceipt {
        try await self.append(envelope, receivedAt: receivedAt, mailboxCapacity: mailboxCapacity, mailboxQuota: .max)
    }

    /// `append(batch:)` with no byte quota.
    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        try await self.append(
            batch: envelopes,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: .max
        )
    }
}
