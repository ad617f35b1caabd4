public import Foundation
import Logging
public import WotsCore
import WotsCrypto

/// What `send` did; its JSON (`wots send --json`) spells the id as a lowercase UUID.
public struct SentMessage: Sendable, Hashable, Codable {
    public var id: UUID
    public var to: Nickname
    public var recipientToken: Token
    public var seq: Int64
    public var receivedAt: Date
    /// True when the recipient's keys were pinned by this send (first use).
    public var pinnedNow: Bool
    public var fingerprint: Fingerprint

    private enum CodingKeys: String, CodingKey {
        case id, to, recipientToken, seq, receivedAt, pinnedNow, fingerprint
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Lowercase, as the text output and `--id` spell it (Foundation's UUID encodes uppercase).
        try container.encode(self.id.uuidString.lowercased(), forKey: .id)
        try container.encode(self.to, forKey: .to)
        try container.encode(self.recipientToken, forKey: .recipientToken)
        try container.encode(self.seq, forKey: .seq)
        try container.encode(self.receivedAt, forKey: .receivedAt)
        try container.encode(self.pinnedNow, forKey: .pinnedNow)
        try container.encode(self.fingerprint, forKey: .fingerprint)
    }
}

extension Messenger {
    /// Largest message text, in UTF-8 bytes, so the sealed envelope stays under the relay's 64 KiB.
    public static let maximumMessageSize = 60_000

    /// Checks a message's size and that it says something.
    /// - Throws: `WotsError.invalidInput` for an empty, whitespace-only or too long message.
    public static func validateMessage(_ text: String) throws {
        let size = text.utf8.count
        guard size > 0 else { throw WotsError(.invalidInput, "the message is empty") }
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw WotsError(.invalidInput, "the message is only whitespace; nothing was sent")
        }
        guard size <= Self.maximumMessageSize else {
            throw WotsError(
                .invalidInput,
                "the message is \(size) bytes (at most \(Self.maximumMessageSize))"
            )
        }
        do {
            // The largest log head a message can carry, so the check holds whatever head is gossiped.
            let largestHead = try LogHead(size: UInt64(1) << 53, root: Array(repeating: 0xFF, count: 32))
            _ = try MessageBody(.text(text), log: largestHead).encoded()
        } catch let error as WotsError {
            throw WotsError(.invalidInput, "the message is too long once encoded: \(error.reason)")
        }
    }

    /// Seals `text` for `nickname` and hands it to the relay.
    ///
    /// The recipient's keys are pinned on first use; a changed key is refused until `trust`. A transient failure
    /// (relay unreachable, 5xx, rate limit) is retried with the same envelope, so the relay stores it once.
    /// - Parameter messageID: default a fresh random id; pass the same id to retry a send safely.
    /// - Throws: `WotsError.keyChanged`, `.unknownNickname`, the relay's refusal.
    /// - Parameter disappearAfter: first set the conversation's disappearing timer to this many seconds (0 turns
    ///   it off) and tell the recipient (a `settings` message); the text then disappears after it too.
    public func send(
        _ text: String,
        to nickname: Nickname,
        messageID: UUID = Envelope.newMessageID(),
        disappearAfter: UInt32? = nil
    ) async throws -> SentMessage {
        try Self.validateMessage(text)
        let unlocked = try await self.unlock()
        let entry = try await self.recipient(nickname)
        let history = try self.openHistory(unlocked)
        _ = try self.removeExpired(from: history, now: self.configuration.now())
        if let disappearAfter {
            _ = try await self.send(
                .settings(disappearAfter: disappearAfter),
                to: entry,
                as: unlocked,
                history: history
            )
        }
        let sent = try await self.send(.text(text), to: entry, messageID: messageID, as: unlocked, history: history)
        if entry.pinnedNow { await self.introduce(to: entry, as: unlocked, history: history) }
        return sent
    }

    /// On first contact, tells the peer this account's avatar (a `profile` message: a preset's name, or the image as
    /// an encrypted blob listed for the peer); a courtesy that never fails the send.
    func introduce(
        to recipient: (entry: DirectoryEntry, pinnedNow: Bool),
        as unlocked: Unlocked,
        history: ConversationHistory
    ) async {
        do {
            guard let avatar = try await self.profileAvatar(for: recipient.entry.token, as: unlocked) else { return }
            _ = try await self.send(.profile(avatar), to: recipient, as: unlocked, history: history)
        } catch {
            self.logger.notice("the profile could not be sent", metadata: ["error": "\(error)"])
        }
    }

    /// Looks up a recipient, proves it by the relay's transparency log and checks it against the contact book,
    /// pinning it on first use.
    /// - Returns: the entry, with `pinnedNow` true when it was pinned by this call.
    func recipient(_ nickname: Nickname) async throws -> (entry: DirectoryEntry, pinnedNow: Bool) {
        let entry = try await self.verifiedEntry(nickname: nickname)
        var book = try self.store.contactBook()
        let pinnedNow = try book.check(entry)
        if pinnedNow { try self.store.save(book) }
        return (entry, pinnedNow)
    }

    /// Seals `content` under the conversation's disappearing timer, posts it, and keeps a text or an attachment in
    /// `history` as `sent`; a `settings` message (which never disappears) sets the conversation's timer first.
    /// - Parameter sentAt: the envelope's `sentAt` (its `expiresAt` counts from it); an attachment's is taken before
    ///   its upload, so its blob expires with it.
    func send(
        _ content: MessageContent,
        to recipient: (entry: DirectoryEntry, pinnedNow: Bool),
        messageID: UUID = Envelope.newMessageID(),
        sentAt: Date = Date(),
        as unlocked: Unlocked,
        history: ConversationHistory
    ) async throws -> SentMessage {
        let entry = recipient.entry
        var outbox = try self.store.outbox()
        let envelope: Envelope
        // Only what a person reads is kept for a retry; receipts and settings are sent once.
        let kept = content.wantsReceipts
        if kept, let sealed = outbox.envelope(id: messageID) {
            // A retry: the same envelope again, so the relay stores it once and repeats its receipt.
            guard sealed.header.recipient == entry.token, sealed.header.recipientFingerprint == entry.fingerprint else {
                throw WotsError(
                    .invalidInput,
                    "message \(messageID.uuidString.lowercased()) was sealed for another recipient or key; use a new id"
                )
            }
            envelope = sealed
        } else {
            if case .text(let text) = content { try Self.validateMessage(text) }
            let timer: UInt32
            if case .settings(let seconds) = content {
                timer = seconds
            } else {
                timer = UInt32(clamping: try history.disappearAfter(with: entry.token))
            }
            // Every stored message carries this client's view of the relay's log (gossip); a one-pair receipt with
            // a head and a timer still pads to 256 bytes, like a short text.
            let gossip = try? await self.auditor.gossipHead()
            let body = try MessageBody(content, disappearAfter: timer, log: gossip ?? nil)
            envelope = try Envelope.seal(
                plaintext: try body.encoded(),
                messageID: messageID,
                sentAt: sentAt,
                from: unlocked.token,
                identity: unlocked.identity,
                to: entry.token,
                recipientKeys: entry.publicKeys,
                expiresAfter: body.expiresAfter
            )
            if kept {
                outbox.add(envelope)
                try self.store.save(outbox)
            }
            if case .settings(let seconds) = content {
                // Ordered by the envelope's own sentAt, the time the peer sees (ConversationHistory).
                try history.setDisappearAfter(
                    Int(seconds),
                    with: entry.token,
                    setAt: envelope.header.sentAt,
                    setBy: unlocked.token
                )
            }
        }
        // Kept before posting, so a receipt that comes back at once finds it; forgotten if the relay refuses it.
        if kept {
            try history.record(
                HistoryEntry(
                    peer: entry.token,
                    sender: unlocked.token,
                    id: messageID,
                    sentAt: envelope.header.sentAt,
                    expiresAt: envelope.header.expiresAt,
                    status: .sent,
                    content: try MessageBody(content).encoded()
                )
            )
        }
        let receipt: SendReceipt
        do {
            receipt = try await self.deliver(envelope)
        } catch {
            if kept { try? history.forget(MessageKey(sender: unlocked.token, id: messageID)) }
            throw Self.retryHint(error, messageID: messageID)
        }
        if kept {
            outbox.markDelivered(messageID)
            try? self.store.save(outbox)
        }
        return SentMessage(
            id: receipt.id,
            to: entry.nickname,
            recipientToken: entry.token,
            seq: receipt.seq,
            receivedAt: receipt.receivedAt,
            pinnedNow: recipient.pinnedNow,
            fingerprint: entry.fingerprint
        )
    }

    /// A transient failure names the id that retries the send safely; others pass unchanged.
    static func retryHint(_ error: any Error, messageID: UUID) -> any Error {
        guard let error = error as? WotsError, Self.isTransient(error) else { return error }
        return WotsError(
            error.code,
            "\(error.reason); not sent (to try again safely: --id \(messageID.uuidString.lowercased()))",
            retryAfterSeconds: error.retryAfterSeconds
        )
    }

    /// Posts an envelope, retrying transient failures with the very same envelope (the relay deduplicates by id).
    func deliver(_ envelope: Envelope, attempts: Int = 4) async throws -> SendReceipt {
        try await self.retryingTransientFailures(attempts: attempts) { try await self.relay.send(envelope) }
    }

    /// Runs `post` until it succeeds, fails for good, or `attempts` transient failures happened, doubling the pause
    /// from 250 ms. Only for requests the relay deduplicates (by message id).
    func retryingTransientFailures<Value>(
        attempts: Int = 4,
        _ post: () async throws -> Value
    ) async throws -> Value {
        var delay = Duration.milliseconds(250)
        var attempt = 1
        while true {
            do {
                return try await post()
            } catch let error as WotsError where attempt < attempts && Self.isTransient(error) {
                self.logger.debug(
                    "send failed, retrying",
                    metadata: ["code": "\(error.code)", "attempt": "\(attempt)"]
                )
                try await Task.sleep(for: delay)
                delay *= 2
                attempt += 1
            }
        }
    }

    static func isTransient(_ error: WotsError) -> Bool {
        if error.code == .relayUnreachable { return true }
        return [.rateLimited, .storageUnavailable, .storageFull, .internalError].contains(error.code)
    }
}
