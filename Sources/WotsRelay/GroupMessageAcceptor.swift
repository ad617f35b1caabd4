import Foundation
import WotsCore
import WotsCrypto
import WotsStorage

/// Takes a group message from an authenticated sender: checks it (SECURITY.md, "Groups", relay checks), then stores
/// the body once and one slot per recipient, all or nothing.
final class GroupMessageAcceptor: Sendable {
    let storage: RelayStorage
    let accounts: AccountCache
    let configuration: RelayConfiguration
    let sendLimiter: TokenBucketLimiter
    let hub: DeliveryHub
    let clock: RelayClock

    init(
        storage: RelayStorage,
        accounts: AccountCache,
        configuration: RelayConfiguration,
        sendLimiter: TokenBucketLimiter,
        hub: DeliveryHub,
        clock: RelayClock
    ) {
        self.storage = storage
        self.accounts = accounts
        self.configuration = configuration
        self.sendLimiter = sendLimiter
        self.hub = hub
        self.clock = clock
    }

    /// - Throws: `WotsError` saying why the message was refused; nothing is stored then.
    func accept(_ request: GroupSendRequest, from sessionToken: Token) async throws -> GroupSendReceipt {
        let now = self.clock.date()
        try await self.check(request, from: sessionToken, now: now)
        let envelope = request.body
        let receipt = try await self.storage.groupMailboxes().appendGroup(
            envelope,
            slots: request.slots,
            receivedAt: now,
            mailboxCapacity: self.configuration.mailboxCapacity,
            mailboxQuota: self.configuration.mailboxQuota
        )
        self.offer(envelope, slots: request.slots, receipt: receipt)
        return GroupSendReceipt(
            id: envelope.header.messageID,
            recipients: receipt.sequences.count,
            receivedAt: receipt.receivedAt
        )
    }

    /// Checks an ephemeral group message (group typing) exactly as a group send, then hands each recipient its slot on
    /// the sockets it has open in this process with `?groups=true`, as it is: nothing is stored, deduplicated or told
    /// to other relay processes.
    /// - Returns: how many sockets were handed a slot (0 when no recipient has one open here).
    /// - Throws: `WotsError` saying why the message was refused; no socket was handed it then.
    func passOn(_ request: GroupSendRequest, from sessionToken: Token) async throws -> Int {
        let now = self.clock.date()
        try await self.check(request, from: sessionToken, now: now)
        return request.slots.reduce(0) { handed, slot in
            handed + self.hub.passOnGroup(request.body, slot: slot.wrappedKey, receivedAt: now, to: slot.recipient)
        }
    }

    /// Hands each recipient's slot to its open sockets in this process (other processes hear of it by NOTIFY).
    private func offer(_ envelope: GroupEnvelope, slots: [GroupSlot], receipt: GroupMailboxReceipt) {
        for (slot, sequence) in zip(slots, receipt.sequences) {
            guard receipt.isNew else {
                // A first attempt that timed out may have committed after all without reaching the sockets.
                self.hub.wake(slot.recipient)
                continue
            }
            let message = GroupMailboxMessage(
                sequence: sequence,
                receivedAt: receipt.receivedAt,
                envelope: envelope,
                slot: slot.wrappedKey
            )
            self.hub.deliver(.group(message), to: slot.recipient)
        }
    }

    /// The session's sender, the recipient count and size limits, the dates, the sender's rate, the signature and
    /// every slot's hash under the sender's registered keys, and that every recipient is registered.
    func check(_ request: GroupSendRequest, from sessionToken: Token, now: Date) async throws {
        let header = request.body.header
        guard header.sender == sessionToken else {
            throw WotsError(
                .senderMismatch,
                "the group message's sender \(header.sender) is not the session's token \(sessionToken)"
            )
        }
        let maximum = self.configuration.maximumGroupMembers
        guard header.recipients.count <= maximum else {
            throw WotsError(
                .invalidArgument,
                "the group message lists \(header.recipients.count) recipients (this relay takes at most \(maximum))"
            )
        }
        let size = request.body.serializedSize - header.encodedSize
        guard size <= self.configuration.maximumEnvelopeSize else {
            throw WotsError(
                .envelopeTooLarge,
                "group message content is \(size) bytes (at most \(self.configuration.maximumEnvelopeSize))"
            )
        }
        try Self.checkDates(header, now: now)
        if let wait = self.sendLimiter.acquire(sessionToken.description) {
            throw WotsError(.rateLimited, "too many messages; retry in \(wait) s", retryAfterSeconds: wait)
        }
        guard let sender = try await self.accounts.entry(token: header.sender) else {
            throw WotsError(.invalidSession, "the session's account \(header.sender) is no longer registered")
        }
        do {
            try request.body.verifyForRelay(senderKeys: sender.publicKeys, slots: request.slots)
        } catch let error as WotsError {
            throw WotsError(error.code, "group message refused: \(error.reason)")
        }
        for recipient in header.recipients {
            guard try await self.accounts.entry(token: recipient.token) != nil else {
                throw WotsError(.unknownRecipient, "recipient \(recipient.token) is not registered")
            }
        }
    }

    /// `sentAt` from 2020 to a day ahead of the relay's clock; `expiresAt` 0 or after the relay's clock.
    static func checkDates(_ header: GroupEnvelopeHeader, now: Date) throws {
        let sentAt = header.sentAt
        guard sentAt >= MessageAcceptor.earliestSentAt,
            sentAt.timeIntervalSince(now) <= MessageAcceptor.allowedClockSkew
        else {
            throw WotsError(
                .sentAtOutOfRange,
                "group message sentAt \(header.sentAtMilliseconds) ms is before 2020 or more than a day ahead"
            )
        }
        let nowMilliseconds = UInt64(max(0, (now.timeIntervalSince1970 * 1000).rounded(.down)))
        guard header.expiresAtMilliseconds == 0 || header.expiresAtMilliseconds > nowMilliseconds else {
            throw WotsError(
                .messageExpired,
                "group message expiresAt \(header.expiresAtMilliseconds) ms is not after the relay's time "
                    + "\(nowMilliseconds) ms"
            )
        }
    }
}
