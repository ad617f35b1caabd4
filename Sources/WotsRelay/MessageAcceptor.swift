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
final class MessageAcceptor: Sendable {
    let storage: RelayStorage
    let accounts: AccountCache
    let hub: DeliveryHub
    let configuration: RelayConfiguration
    let metrics: RelayMetrics
    let sendLimiter: TokenBucketLimiter
    let clock: RelayClock

    init(
        storage: RelayStorage,
        accounts: AccountCache,
        hub: DeliveryHub,
        configuration: RelayConfiguration,
        metrics: RelayMetrics,
        sendLimiter: TokenBucketLimiter,
        clock: RelayClock
    ) {
        self.storage = storage
        self.accounts = accounts
        self.hub = hub
        self.configuration = configuration
        self.metrics = metrics
        self.sendLimiter = sendLimiter
        self.clock = clock
    }

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
        return try await self.store(envelope, receivedAt: now)
    }

    /// What `enqueueNow` could do without suspending.
    enum Enqueued: Sendable {
        case taken(PendingWrite<SendReceipt>)
        /// The rest must wait (for the database): `finish` does it, in the caller's order, with what was checked.
        case unfinished(finish: @Sendable () async throws -> PendingWrite<SendReceipt>)
    }

    /// `enqueue` without suspending, for a socket's event loop, as far as it goes: when both accounts are in memory
    /// and the store can stage the message at once (nearly always), the envelope is taken; otherwise the rest of the
    /// work is handed back to be finished in a task, and nothing checked is checked (or counted against the sender's
    /// rate) twice.
    /// - Throws: `WotsError` saying why the envelope was refused; nothing is stored then.
    func enqueueNow(_ envelope: Envelope, from sessionToken: Token) throws -> Enqueued {
        let now = self.clock.date()
        let header = envelope.header
        guard let sender = self.accounts.cachedEntry(token: header.sender),
            let recipient = self.accounts.cachedEntry(token: header.recipient)
        else {
            return .unfinished { try await self.enqueue(envelope, from: sessionToken) }
        }
        try self.check(envelope, from: sessionToken, now: now, sender: sender, recipient: recipient)
        let staged = try self.countingRefusals {
            try self.storage.mailboxes.enqueueAppendNow(
                envelope,
                receivedAt: now,
                mailboxCapacity: self.configuration.mailboxCapacity,
                mailboxQuota: self.configuration.mailboxQuota,
                announce: self.announcement(for: header.recipient)
            )
        }
        guard let staged else { return .unfinished { try await self.store(envelope, receivedAt: now) } }
        return .taken(self.receipt(of: staged, header: header))
    }

    /// Hands a checked envelope to the store.
    private func store(_ envelope: Envelope, receivedAt now: Date) async throws -> PendingWrite<SendReceipt> {
        let header = envelope.header
        let write = try await self.countingRefusals {
            try await self.storage.mailboxes.enqueueAppend(
                envelope,
                receivedAt: now,
                mailboxCapacity: self.configuration.mailboxCapacity,
                mailboxQuota: self.configuration.mailboxQuota,
                announce: self.announcement(for: header.recipient)
            )
        }
        return self.receipt(of: write, header: header)
    }

    private func announcement(for recipient: Token) -> Announcement {
        { [hub] message in hub.deliver(.direct(message), to: recipient) }
    }

    private func countingRefusals<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch {
            self.countRefusal(error)
            throw error
        }
    }

    private func countingRefusals<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch {
            self.countRefusal(error)
            throw error
        }
    }

    private func countRefusal(_ error: any Error) {
        if let error = error as? WotsError, error.code == .mailboxQuotaExceeded {
            self.metrics.quotaRefusals.increment()
        }
    }

    /// The sender's receipt once the write settled: a retry of a stored message wakes the recipient's sockets, as a
    /// first attempt that timed out may have committed after all without reaching them.
    private func receipt(of write: PendingWrite<MailboxReceipt>, header: EnvelopeHeader) -> PendingWrite<SendReceipt> {
        let (hub, metrics) = (self.hub, self.metrics)
        write.whenSettled { [self] outcome in
            if case .failure(let error) = outcome { self.countRefusal(error) }
        }
        return write.map { receipt in
            if receipt.isNew {
                metrics.messagesStored.increment()
            } else {
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
        try self.checkBeforeAccounts(envelope, from: sessionToken, now: now)
        let header = envelope.header
        guard let sender = try await self.accounts.entry(token: header.sender) else {
            throw Self.senderGone(header)
        }
        try self.checkSignature(envelope, sender: sender)
        try self.checkRecipient(header, try await self.accounts.entry(token: header.recipient))
    }

    /// `check` with both accounts' entries at hand (nil: not registered).
    private func check(
        _ envelope: Envelope,
        from sessionToken: Token,
        now: Date,
        sender: DirectoryEntry?,
        recipient: DirectoryEntry?
    ) throws {
        try self.checkBeforeAccounts(envelope, from: sessionToken, now: now)
        guard let sender else { throw Self.senderGone(envelope.header) }
        try self.checkSignature(envelope, sender: sender)
        try self.checkRecipient(envelope.header, recipient)
    }

    /// The checks that need no account: the session's sender, the size, the dates, then the sender's rate.
    private func checkBeforeAccounts(_ envelope: Envelope, from sessionToken: Token, now: Date) throws {
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
    }

    private static func senderGone(_ header: EnvelopeHeader) -> WotsError {
        WotsError(.invalidSession, "the session's account \(header.sender) is no longer registered")
    }

    private func checkSignature(_ envelope: Envelope, sender: DirectoryEntry) throws {
        do {
            try envelope.verifySignature(senderKeys: sender.publicKeys)
        } catch let error as WotsError {
            throw WotsError(error.code, "envelope refused: \(error.reason)")
        }
    }

    private func checkRecipient(_ header: EnvelopeHeader, _ recipient: DirectoryEntry?) throws {
        guard let recipient else {
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
