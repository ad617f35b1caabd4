public import Foundation
public import WotsCore
public import WotsStorage

/// Mailboxes that pass every call to `base`: a test's fault-injecting mailboxes implement only the calls they break.
/// `enqueueAppend` and `enqueueAcknowledge` are left to `MailboxRepository`'s defaults, which call this type's
/// `append` and `acknowledge`, so a broken one is broken on the stream too.
public protocol ForwardingMailboxRepository: MailboxRepository {
    var base: any MailboxRepository { get }
}

extension ForwardingMailboxRepository {
    public func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int, mailboxQuota: Int) async throws
        -> MailboxReceipt
    {
        try await self.base.append(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
    }

    public func append(batch envelopes: [Envelope], receivedAt: Date, mailboxCapacity: Int, mailboxQuota: Int)
        async throws -> [Result<MailboxReceipt, WotsError>]
    {
        try await self.base.append(
            batch: envelopes,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]
    {
        try await self.base.messages(for: recipient, after: sequence, limit: limit, at: now)
    }

    public func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey] {
        try await self.base.acknowledge(keys, for: recipient, at: now)
    }

    public func depth(of recipient: Token) async throws -> Int { try await self.base.depth(of: recipient) }

    public func statistics() async throws -> MailboxStatistics { try await self.base.statistics() }

    public func deleteMailbox(of recipient: Token) async throws { try await self.base.deleteMailbox(of: recipient) }

    public func forgetAcknowledgements(before cutoff: Date) async throws -> Int {
        try await self.base.forgetAcknowledgements(before: cutoff)
    }

    public func expire(receivedBefore cutoff: Date, at now: Date, limit: Int) async throws -> Int {
        try await self.base.expire(receivedBefore: cutoff, at: now, limit: limit)
    }

    public func deleteExpired(at now: Date, limit: Int) async throws -> Int {
        try await self.base.deleteExpired(at: now, limit: limit)
    }

    public func expiryNotices(for sender: Token, limit: Int) async throws -> [ExpiryNotice] {
        try await self.base.expiryNotices(for: sender, limit: limit)
    }

    public func clearExpiryNotices(_ messageIDs: [UUID], for sender: Token) async throws -> [UUID] {
        try await self.base.clearExpiryNotices(messageIDs, for: sender)
    }

    public func forgetExpiryNotices(before cutoff: Date) async throws -> Int {
        try await self.base.forgetExpiryNotices(before: cutoff)
    }
}
