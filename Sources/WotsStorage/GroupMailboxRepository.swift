public import Foundation
public import WotsCore

/// What the relay answered when it stored a group message: one sequence number per recipient, in header order.
public struct GroupMailboxReceipt: Sendable, Hashable {
    public var receivedAt: Date
    /// Each recipient's sequence number for its slot, in the order of the header's recipients.
    public var sequences: [Int64]
    /// False when the same body was held already: nothing was stored and nobody must be offered it again.
    public var isNew: Bool

    public init(receivedAt: Date, sequences: [Int64], isNew: Bool = true) {
        self.receivedAt = receivedAt
        self.sequences = sequences
        self.isNew = isNew
    }
}

/// One recipient's waiting group message: its place in the recipient's mailbox, the body and the recipient's slot.
public struct GroupMailboxMessage: Sendable, Hashable {
    public var sequence: Int64
    public var receivedAt: Date
    public var envelope: GroupEnvelope
    /// The recipient's wrapped content key (256 bytes).
    public var slot: [UInt8]

    public init(sequence: Int64, receivedAt: Date, envelope: GroupEnvelope, slot: [UInt8]) {
        self.sequence = sequence
        self.receivedAt = receivedAt
        self.envelope = envelope
        self.slot = slot
    }
}

/// How much group mail is stored: bodies once, slots once per recipient.
public struct GroupStorageStatistics: Sendable, Hashable {
    public var bodies: Int
    public var slots: Int
    /// Serialized bytes of the stored bodies.
    public var bodyBytes: Int

    public init(bodies: Int, slots: Int, bodyBytes: Int) {
        self.bodies = bodies
        self.slots = slots
        self.bodyBytes = bodyBytes
    }
}

/// Group messages in the recipients' mailboxes: the body stored **once**, one small slot per recipient.
///
/// A slot takes its sequence number from the recipient's mailbox counter, so it has a place among the recipient's
/// 1:1 messages; the body is deleted with its last slot. SECURITY.md and docs/GROUPS.md, "Relay storage".
public protocol GroupMailboxRepository: Sendable {
    /// Stores the body once and one slot per recipient, in one transaction, or nothing at all.
    ///
    /// All or nothing: when any recipient's mailbox holds `mailboxCapacity` messages (1:1 and group together) or
    /// would pass `mailboxQuota` bytes (each slot charges its recipient the body's size plus 256), nothing is stored
    /// and the error names that recipient; a group message never reaches some members silently without others.
    /// Idempotent by (sender, message id) while any slot waits, and after the last slot was acknowledged for as long
    /// as the repository remembers it (until `forgetAcknowledgedGroupMessages(before:)`): the same body again returns
    /// the first receipt (with sequence 0 for a slot acknowledged already) and stores nothing. Once acknowledged, only
    /// the signature is kept to tell bodies apart (it covers every other byte).
    /// - Parameter slots: one per header recipient, in header order (checked by the relay before this).
    /// - Throws: `mailboxFull`, `mailboxQuotaExceeded`, `messageIDConflict` (same id, another body).
    func appendGroup(
        _ envelope: GroupEnvelope,
        slots: [GroupSlot],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> GroupMailboxReceipt

    /// Up to `limit` of the recipient's group messages with a sequence above `sequence`, in sequence order, leaving
    /// out those whose body's `expiresAt` has come by `now`.
    func groupMessages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [GroupMailboxMessage]

    /// Deletes the recipient's slots of these messages, and each body whose last slot this was; such a body's key,
    /// first receive time and signature are remembered as acknowledged at `now`, so a retried send is not delivered
    /// again.
    /// - Returns: the keys whose slots were deleted by this call, in the order given, each once.
    @discardableResult
    func acknowledgeGroup(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey]

    /// Deletes up to `limit` bodies whose `expiresAt` has come by `now`, with all their slots.
    /// - Returns: how many bodies were deleted.
    @discardableResult
    func deleteExpiredGroupMessages(at now: Date, limit: Int) async throws -> Int

    /// Deletes up to `limit` bodies received before `cutoff` (the relay's retention), oldest first, with every slot
    /// left: a member who has not fetched its slot by then never gets it. No expiry notice is written (docs/GROUPS.md).
    /// - Returns: how many bodies were deleted.
    @discardableResult
    func expireGroupMessages(receivedBefore cutoff: Date, limit: Int) async throws -> Int

    /// Forgets the group messages whose last slot was acknowledged before `cutoff`: a retried send of one of them is
    /// stored again.
    /// - Returns: how many were forgotten.
    @discardableResult
    func forgetAcknowledgedGroupMessages(before cutoff: Date) async throws -> Int

    /// Totals over every stored group message.
    func groupStatistics() async throws -> GroupStorageStatistics
}

extension GroupEnvelope {
    /// What each recipient's slot charges against its mailbox quota: the body it must download, plus its slot.
    public var chargedBytesPerSlot: Int { self.serializedSize + Self.slotSize }

    /// The body's `expiresAt` in milliseconds since the epoch; nil when it never expires.
    public var mailboxExpiryMilliseconds: Int64? {
        let expiresAt = self.header.expiresAtMilliseconds
        guard expiresAt != 0, let milliseconds = Int64(exactly: expiresAt) else { return nil }
        return milliseconds
    }

    /// Whether the body's `expiresAt` has come by `now` (one that expires at exactly `now` has).
    public func hasExpired(at now: Date) -> Bool { MailboxExpiry.hasCome(self.mailboxExpiryMilliseconds, by: now) }
}
