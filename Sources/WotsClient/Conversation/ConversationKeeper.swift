public import Foundation
import Logging
public import WotsCore
import WotsCrypto

/// What a running command does with opened messages beyond showing them: keeps them in the history, answers them
/// with receipts, applies receipts, timers and profiles, and deletes disappearing messages on time.
///
/// Receipts wait in memory until `flushReceipts()`, so one envelope per peer and status names up to 100 messages.
public actor ConversationKeeper {
    let messenger: Messenger
    let unlocked: Messenger.Unlocked
    /// The history, open for this command.
    public nonisolated let history: ConversationHistory
    /// Whether `read` receipts are sent (the account setting, unless the command turned them off).
    public nonisolated let sendsReadReceipts: Bool
    private var pending: [Receipt.Status: [Token: [MessageKey]]] = [:]
    /// Receipts for group messages, kept apart so one receipt envelope never names both kinds (`+Groups`).
    var pendingGroup: [Receipt.Status: [Token: [MessageKey]]] = [:]

    init(messenger: Messenger, unlocked: Messenger.Unlocked, readReceipts: Bool) throws {
        self.messenger = messenger
        self.unlocked = unlocked
        self.history = try messenger.openHistory(unlocked)
        self.sendsReadReceipts = readReceipts && (unlocked.profile.readReceipts ?? true)
    }

    /// Handles one opened message (valid or not).
    /// - Returns: the event to show; nil when there is nothing to show (a receipt for nothing kept, a checkpoint).
    /// - Parameter now: default the messenger's clock.
    public func receive(_ message: ReceivedMessage, now: Date? = nil) throws -> ConversationEvent? {
        guard message.isValid, let body = message.body else { return .message(message) }
        let peer = message.fromToken
        if case .settings(let seconds) = body.content {
            // A change that crossed a later one on the way is not applied, so both sides keep the same timer.
            let applied = try self.history.setDisappearAfter(
                Int(seconds),
                with: peer,
                setAt: message.sentAt,
                setBy: peer
            )
            return applied ? .timer(seconds: seconds, peer: peer, setBy: peer) : nil
        }
        if let expiresAt = message.expiresAt, expiresAt <= now ?? self.messenger.configuration.now() {
            return .expired(count: 1)
        }
        switch body.content {
        case .settings:
            return nil
        case .text, .attachment, .unsupported:
            try self.history.record(
                HistoryEntry(
                    peer: peer,
                    sender: peer,
                    id: message.id,
                    sentAt: message.sentAt,
                    expiresAt: message.expiresAt,
                    status: .received,
                    content: try body.encoded()
                )
            )
            if body.content.wantsReceipts { self.queue(.delivered, message.key, to: peer) }
            return .message(message)
        case .receipt(let receipt):
            let mine = receipt.messages.filter { $0.sender == self.unlocked.token }
            let status: HistoryEntry.Status = receipt.status == .read ? .read : .delivered
            let group = try self.history.advance(mine, for: peer, to: status)
            if !group.changed.isEmpty { return .groupStatus(try self.deliveries(group.changed), status, member: peer) }
            let direct = mine.filter { !group.groupMessages.contains($0) }
            let changed = try self.history.advance(direct, to: status, from: peer)
            return changed.isEmpty ? nil : .status(changed, status, peer: peer)
        case .typing:
            return nil  // typing only counts when it came ephemerally (`receiveEphemeral`)
        case .profile(let avatar):
            guard let known = PeerAvatar(avatar, savedTo: message.savedTo) else { return nil }
            try self.history.setAvatar(known, of: peer)
            try self.messenger.store.savePeerAvatar(known, of: peer)
            return .profile(peer: peer, known)
        case .checkpoint, .groupUpdate:
            return nil  // a group_update in a 1:1 envelope means nothing: groups travel in group envelopes
        }
    }

    /// Handles a message that came as an ephemeral frame: only `typing` is accepted that way.
    public func receiveEphemeral(_ message: ReceivedMessage) -> ConversationEvent? {
        guard message.isValid, case .typing(let state) = message.body?.content else { return nil }
        return .typing(peer: message.fromToken, state)
    }

    /// Records that a person saw `message`: a `read` receipt goes with the next flush, unless read receipts are off.
    public func markRead(_ message: ReceivedMessage) {
        guard self.sendsReadReceipts, message.isValid, message.body?.content.wantsReceipts == true else { return }
        self.queue(.read, message.key, to: message.fromToken)
    }

    private func queue(_ status: Receipt.Status, _ key: MessageKey, to peer: Token) {
        self.pending[status, default: [:]][peer, default: []].append(key)
    }

    /// Sends the receipts waiting, `delivered` before `read`; one that cannot be sent is dropped with a log line
    /// (a receipt is a courtesy, never a reason to fail the command).
    public func flushReceipts() async {
        let pending = [self.pending, self.pendingGroup]
        self.pending = [:]
        self.pendingGroup = [:]
        for status in [Receipt.Status.delivered, .read] {
            for pending in pending { await self.send(status, receipts: pending[status] ?? [:]) }
        }
    }

    /// Sends `status` receipts for `keys` by peer, at most 100 messages per envelope.
    private func send(_ status: Receipt.Status, receipts: [Token: [MessageKey]]) async {
        for (peer, keys) in receipts {
            for start in stride(from: 0, to: keys.count, by: Receipt.maximumMessages) {
                let batch = Array(keys[start..<min(keys.count, start + Receipt.maximumMessages)])
                do {
                    let content = MessageContent.receipt(try Receipt(status: status, messages: batch))
                    _ = try await self.send(content, to: peer)
                } catch {
                    self.messenger.logger.notice(
                        "a receipt could not be sent",
                        metadata: ["status": "\(status)", "error": "\(error)"]
                    )
                }
            }
        }
    }

    /// Seals `content` for `peer` (a pinned contact) under the conversation's timer and posts it; a text or an
    /// attachment is kept in the history as `sent`.
    /// - Parameter sentAt: the envelope's `sentAt`, from which its timer counts.
    /// - Returns: the relay's receipt.
    public func send(
        _ content: MessageContent,
        to peer: Token,
        messageID: UUID = Envelope.newMessageID(),
        sentAt: Date = Date()
    ) async throws -> SentMessage {
        guard let contact = try self.messenger.store.contactBook().contact(token: peer) else {
            throw WotsError(.unknownToken, "token \(peer) is not a contact on this machine")
        }
        return try await self.messenger.send(
            content,
            to: (contact.directoryEntry, false),
            messageID: messageID,
            sentAt: sentAt,
            as: self.unlocked,
            history: self.history
        )
    }

    /// Tells `peer` this side started or stopped typing, as an ephemeral frame on the live stream (never stored by
    /// the relay); nothing is sent while the stream is down.
    func sendTyping(_ state: MessageContent.TypingState, to peer: Token, link: StreamLink) async throws {
        guard link.isConnected, let contact = try self.messenger.store.contactBook().contact(token: peer) else {
            return
        }
        let envelope = try Envelope.seal(
            plaintext: try MessageBody(.typing(state)).encoded(),
            from: self.unlocked.token,
            identity: self.unlocked.identity,
            to: peer,
            recipientKeys: contact.publicKeys
        )
        try await link.sendEphemeral(envelope)
    }

    /// Sends this account's avatar (a `profile` message: a preset's name or an encrypted image blob), as on first
    /// contact; nothing without an avatar.
    func sendProfile(to peer: Token) async throws {
        guard let avatar = try await self.messenger.profileAvatar(for: peer, as: self.unlocked) else { return }
        _ = try await self.send(.profile(avatar), to: peer)
    }

    /// Sets the conversation's disappearing timer and tells the peer (a `settings` message).
    public func setTimer(_ seconds: UInt32, with peer: Token) async throws -> SentMessage {
        try await self.send(.settings(disappearAfter: seconds), to: peer)
    }

    /// Deletes the messages whose time came from every local store.
    /// - Returns: how many were deleted.
    public func removeExpired(now: Date? = nil) throws -> Int {
        try self.messenger.removeExpired(from: self.history, now: now ?? self.messenger.configuration.now()).count
    }
}

extension Contact {
    /// The directory entry this contact was pinned from.
    var directoryEntry: DirectoryEntry {
        DirectoryEntry(
            token: self.token,
            nickname: self.nickname,
            publicKeys: self.publicKeys,
            fingerprint: self.fingerprint,
            registeredAt: self.pinnedAt
        )
    }
}
