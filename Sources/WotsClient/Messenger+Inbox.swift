import Foundation
import WotsCore

/// What `inbox` did.
public struct InboxSummary: Sendable, Hashable {
    /// Messages shown (valid or not).
    public var shown = 0
    /// Messages that failed verification or decryption.
    public var invalid = 0
    /// Redeliveries of messages shown before, dropped.
    public var duplicates = 0
    /// Messages deleted at the relay.
    public var acknowledged = 0
    /// Messages this account sent that expired undelivered, reported by the relay.
    public var expired = 0
}

extension Messenger {
    /// Fetches the mailbox page by page, verifies and decrypts each message, hands it to `show`, then acknowledges
    /// what was shown (unless `keep`). Messages from a changed key stay in the mailbox until the key is trusted. Then
    /// hands over the relay's notices of this account's messages that expired undelivered, and clears them.
    /// - Parameters:
    ///   - keep: leave everything in the mailbox and every notice at the relay (and show them again next time).
    ///   - downloads: where attachments are saved (each checked, then acknowledged to the relay); nil saves none.
    ///   - progress: told the bytes of each attachment downloaded so far.
    ///   - show: called once per new message, in mailbox order, before it is acknowledged.
    ///   - expired: called once per expired message, oldest first, before its notice is cleared.
    ///   - readReceipts: send `read` receipts for the messages shown (when the account setting allows). Default true.
    ///   - event: told what else happened: receipts, timers, disappearing messages that expired.
    /// Messages a person reads are kept in the history and answered with `delivered` receipts.
    public func inbox(
        keep: Bool,
        readReceipts: Bool = true,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil,
        show: (ReceivedMessage) throws -> Void,
        event: (ConversationEvent) throws -> Void = { _ in },
        expired: (ExpiredMessage) throws -> Void = { _ in }
    ) async throws -> InboxSummary {
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: readReceipts)
        let gone = try await keeper.removeExpired()
        if gone > 0 { try event(.expired(count: gone)) }
        var opener = MessageOpener(
            relay: self.relay,
            token: unlocked.token,
            identity: unlocked.identity,
            contacts: try self.store.contactBook(),
            seen: keep ? SeenMessages() : try self.store.seenMessages(),
            restoredAt: unlocked.profile.restoredAt,
            auditor: self.auditor
        )
        var summary = InboxSummary()
        var after: Int64 = 0
        let pageSize = 100
        while true {
            let page = try await self.relay.mailbox(after: after, limit: pageSize).messages
            guard !page.isEmpty else { break }
            var acknowledge: [MessageKey] = []
            for delivered in page {
                after = max(after, delivered.seq)
                guard var message = try await opener.open(delivered) else {
                    summary.duplicates += 1
                    acknowledge.append(delivered.envelope.header.messageKey)
                    continue
                }
                await self.fetchAttachment(of: &message, with: downloads, progress: progress)
                await self.fetchAvatar(of: &message, acknowledging: !keep)
                switch try await keeper.receive(message) {
                case .message(let shown):
                    try show(shown)
                    summary.shown += 1
                    if !shown.isValid { summary.invalid += 1 }
                    await keeper.markRead(shown)
                case let other?:
                    try event(other)
                case nil:
                    break
                }
                if message.acknowledge {
                    opener.markSeen(message.key)
                    acknowledge.append(message.key)
                }
            }
            if opener.contactsChanged { try self.store.save(opener.contacts) }
            if !keep {
                try self.store.save(opener.seen)
                if !acknowledge.isEmpty {
                    summary.acknowledged += try await self.relay.acknowledge(acknowledge).acknowledged
                }
            }
        }
        await keeper.flushReceipts()
        let expiredMessages = try await self.fetchExpiredMessages(keep: true)
        for message in expiredMessages { try expired(message) }
        summary.expired = expiredMessages.count
        if !keep, !expiredMessages.isEmpty { try await self.relay.clearNotices(expiredMessages.map(\.id)) }
        return summary
    }
}
