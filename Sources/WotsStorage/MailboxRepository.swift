public import Foundation
public import WotsCore

/// What a mailbox said when it took an envelope: the recipient's sequence number and the relay's receive time.
public struct MailboxReceipt: Sendable, Hashable, Codable {
    /// Per-recipient, strictly increasing from 1, never reused, even after acknowledgement.
    public var sequence: Int64
    public var receivedAt: Date

    public init(sequence: Int64, receivedAt: Date) {
        self.sequence = sequence
        self.receivedAt = receivedAt
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

    public init(waiting: Int, deepest: Int) {
        self.waiting = waiting
        self.deepest = deepest
    }
}

/// Store-and-forward mailboxes, one per recipient token.
public protocol MailboxRepository: Sendable {
    /// Durably stores an envelope in its recipient's mailbox before returning.
    ///
    /// Idempotent by (sender, message id): the same envelope again returns the first receipt and stores nothing.
    /// - Parameter receivedAt: the receive time recorded in a new receipt (milliseconds are kept).
    /// - Parameter mailboxCapacity: how many unacknowledged messages the recipient may hold.
    /// - Throws: `WotsError.messageIDConflict` when the sender used the id for a different envelope,
    ///   `.mailboxFull` when the recipient already holds `mailboxCapacity` messages.
    func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int) async throws -> MailboxReceipt

    /// Stores many envelopes in one transaction; one outcome per envelope, in order, each as `append` would give.
    func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>]

    /// Up to `limit` of the recipient's messages with a sequence number above `sequence`, in sequence order.
    func messages(for recipient: Token, after sequence: Int64, limit: Int) async throws -> [MailboxMessage]

    /// Deletes the recipient's messages with these ids; ids of other mailboxes are ignored.
    /// - Returns: how many messages were deleted.
    @discardableResult
    func acknowledge(_ messageIDs: [UUID], for recipient: Token) async throws -> Int

    /// How many messages wait in the recipient's mailbox.
    func depth(of recipient: Token) async throws -> Int

    /// Totals over every mailbox.
    func statistics() async throws -> MailboxStatistics

    /// Removes every message of the recipient's mailbox (account deletion).
    func deleteMailbox(of recipient: Token) async throws

    /// Deletes messages received before `cutoff`.
    /// - Returns: how many were deleted.
    @discardableResult
    func sweep(receivedBefore cutoff: Date) async throws -> Int
}
