import CoreMetrics
import Foundation
import HTTPTypes
import Logging
import WotsCore
import WotsCrypto
import WotsStorage

/// Takes an envelope from an authenticated sender, over HTTP or the WebSocket: checks it, stores it durably, then
/// hands the stored message to the recipient's open sockets in this process (other processes hear of it from the
/// database).
struct MessageAcceptor: Sendable {
    let storage: RelayStorage
    let accounts: AccountCache
    let hub: DeliveryHub
    let configuration: RelayConfiguration
    let metrics: RelayMetrics
    let sendLimiter: TokenBucketLimiter
    let clock: RelayClock

    /// A retried send (same sender, id and envelope) gets the first answer and is not handed to any socket: the
    /// recipient's sockets are only woken to re-read their mailbox, which sends them nothing they already have.
    /// - Throws: `WotsError` saying why the envelope was refused; nothing is stored then.
    func accept(_ envelope: Envelope, from sessionToken: Token) async throws -> SendReceipt {
        try await self.enqueue(envelope, from: sessionToken).outcome()
    }

    /// `accept` in two steps: checks the envelope and returns once the store has given it its place, so a caller's
    /// sends are stored in the order it enqueues them; the result's outcome is the receipt once it committed. The
    /// recipient's sockets in this process are handed the message as soon as the store numbered it, which on SQLite
    /// is before the commit.
    /// - Throws: `WotsError` saying why the envelope was refused (nothing is stored then); the outcome throws when
    ///   the store refused it or could not write it.
    func enqueue(_ envelope: Envelope, from sessionToken: Token) async throws -> PendingWrite<SendReceipt> {
        let now = self.clock.date()
        try await self.check(envelope, from: sessionToken, now: now)
        let header = envelope.header
        let (hub, metrics) = (self.hub, self.metrics)
        @Sendable func countRefusal(_ error: any Error) {
            if let error = error as? WotsError, error.code == .mailboxQuotaExceeded {
                metrics.quotaRefusals.increment()
            }
        }
        let write: PendingWrite<MailboxReceipt>
        do {
            write = try await self.storage.mailboxes.enqueueAppend(
                envelope,
                receivedAt: now,
                mailboxCapacity: self.configuration.mailboxCapacity,
                mailboxQuota: self.configuration.mailboxQuota,
                announce: { message in hub.deliver(.direct(message), to: header.recipient) }
            )
        } catch {
            countRefusal(error)
            throw error
        }
        write.whenSettled { outcome in
            if case .failure(let error) = outcome { countRefusal(error) }
        }
        return write.map { receipt in
            if receipt.isNew {
                metrics.messagesStored.increment()
            } else {
                // A first attempt that timed out may have committed after all without reaching the sockets.
                hub.wake(header.recipient)
            }
            return SendReceipt(id: header.messageID, seq: receipt.sequence, receivedAt: receipt.receivedAt)
        }
    }

    /// Checks an ephemeral envelope (typing) exactly as a send, then hands it to the recipient's sockets open in this
    /// process, as it is: nothing is stored, deduplicated or told to other relay processes.
    /// - Returns: how many sockets were handed it (0 when the recipient has none open here).
    /// - Throws: `WotsError` saying why the envelope was refused; no socket was handed it then.
    func passOn(_ envelope: Envelope, from sessionToken: Token) async throws -> Int {
        let now = self.clock.date()
        try await self.check(envelope, from: sessionToken, now: now)
        return self.hub.passOn(envelope, receivedAt: now, to: envelope.header.recipient)
    }

    /// Everything a send must pass before it is stored or passed on: the session's sender, the size, the dates, the
    /// sender's rate, the signature under the sender's registered keys, and the recipient's current keys.
    func check(_ envelope: Envelope, from sessionToken: Token, now: Date) async throws {
        let header = envelope.header
        guard header.sender == sessionToken else {
            throw WotsError(
                .senderMismatch,
                "the envelope's sender \(header.sender) is not the session's token \(sessionToken)"
            )
        }
        let size = envelope.serializedSize
        guard size <= self.configuration.maximumEnvelopeSize else {
            throw WotsError(
                .envelopeTooLarge,
                "envelope is \(size) bytes (at most \(self.configuration.maximumEnvelopeSize))"
            )
        }
        try Self.checkSentAt(header, now: now)
        try Self.checkExpiresAt(envelope, now: now)
        if let wait = self.sendLimiter.acquire(sessionToken.description) {
            throw WotsError(.rateLimited, "too many messages; retry in \(wait) s", retryAfterSeconds: wait)
        }
        guard let sender = try await self.accounts.entry(token: header.sender) else {
            throw WotsError(.invalidSession, "the session's account \(header.sender) is no longer registered")
        }
        do {
            try envelope.verifySignature(senderKeys: sender.publicKeys)
        } catch let error as WotsError {
            throw WotsError(error.code, "envelope refused: \(error.reason)")
        }
        guard let recipient = try await self.accounts.entry(token: header.recipient) else {
            throw WotsError(.unknownRecipient, "recipient \(header.recipient) is not registered")
        }
        guard recipient.fingerprint == header.recipientFingerprint else {
            throw WotsError(
                .recipientKeyChanged,
                "the envelope is sealed for a key the recipient no longer has (now \(recipient.fingerprint))"
            )
        }
    }

    /// Refuses a v2 envelope whose `expiresAt` (not 0) has come by the relay's clock: the sender wanted it gone by
    /// now, so nobody may be handed it.
    static func checkExpiresAt(_ envelope: Envelope, now: Date) throws {
        guard envelope.hasExpired(at: now) else { return }
        throw WotsError(
            .messageExpired,
            "envelope expiresAt \(envelope.header.expiresAtMilliseconds) ms is not after the relay's time "
                + "\(Int64((now.timeIntervalSince1970 * 1000).rounded(.down))) ms"
        )
    }

    /// Earliest `sentAt` accepted: 2020-01-01T00:00:00Z, before any Wots client existed.
    static let earliestSentAt = Date(timeIntervalSince1970: 1_577_836_800)
    /// How far ahead of the relay's clock a sender's clock may be.
    static let allowedClockSkew: TimeInterval = 24 * 3600

    /// Refuses envelopes dated before 2020 or more than a day ahead of the relay's clock: whatever a recipient shows
    /// as "sent at" stays a plausible date.
    static func checkSentAt(_ header: EnvelopeHeader, now: Date) throws {
        let sentAt = header.sentAt
        guard sentAt >= Self.earliestSentAt, sentAt.timeIntervalSince(now) <= Self.allowedClockSkew else {
            throw WotsError(
                .sentAtOutOfRange,
                "envelope sentAt \(header.sentAtMilliseconds) ms is before 2020 or more than a day ahead of the relay"
            )
        }
    }
}
