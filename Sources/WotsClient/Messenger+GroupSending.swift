public import Foundation
import Logging
public import WotsCore
import WotsCrypto

/// What `send --group` did; JSON `{"id", "group", "groupName", "recipients", "receivedAt"}`.
public struct SentGroupMessage: Sendable, Hashable, Encodable {
    public var id: UUID
    public var group: GroupID
    public var groupName: String
    /// How many mailboxes the relay stored a slot in.
    public var recipients: Int
    public var receivedAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, group, groupName, recipients, receivedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.group, forKey: .group)
        try container.encode(self.groupName, forKey: .groupName)
        try container.encode(self.recipients, forKey: .recipients)
        try container.encode(self.receivedAt, forKey: .receivedAt)
    }
}

extension Messenger {
    /// Sends `text` to every other member of `group` (a name or an id prefix), sealed once and wrapped for each.
    ///
    /// First takes in what waits in the group mailbox (so membership changes apply before the recipient list is
    /// chosen). Every member's key is the pinned one; a changed key is refused until `wots trust NICK`.
    /// - Throws: `not_found` / `invalid_input` for the group, `invalid_input` once this account left or was removed,
    ///   `key_changed`, the relay's refusal.
    /// - Parameter disappearAfter: first set the group's disappearing timer to this many seconds (0 turns it off) for
    ///   every member (a `settings` group message); the text then disappears after it too.
    public func sendGroup(
        _ text: String,
        to group: String,
        messageID: UUID = Envelope.newMessageID(),
        disappearAfter: UInt32? = nil
    ) async throws -> SentGroupMessage {
        try Self.validateMessage(text)
        let (unlocked, state) = try await self.memberState(of: group, disappearAfter: disappearAfter)
        return try await self.postText(text, in: state, messageID: messageID, as: unlocked)
    }

    /// Unlocks, takes in the group mailbox and finds the group this account is a member of; with `disappearAfter`,
    /// first sets its timer.
    /// - Throws: `not_found` / `invalid_input` for the group, `invalid_input` once this account left or was removed.
    func memberState(of group: String, disappearAfter: UInt32? = nil) async throws -> (Unlocked, GroupState) {
        let unlocked = try await self.unlock()
        try await self.syncGroups(unlocked)
        let chain = try self.store.groupBook().resolve(group)
        guard chain.isMember else {
            throw WotsError(.invalidInput, "you are no longer a member of \(chain.current.name); nothing was sent")
        }
        if let disappearAfter {
            _ = try await self.post(.settings(disappearAfter: disappearAfter), in: chain.current, as: unlocked)
        }
        return (unlocked, chain.current)
    }

    /// Seals and posts `text` for the other members of `state`, kept in the history as sent.
    /// - Parameter sequence: this account's sender sequence to use; default the next one from the group book.
    func postText(
        _ text: String,
        in state: GroupState,
        messageID: UUID = Envelope.newMessageID(),
        sequence: UInt64? = nil,
        as unlocked: Unlocked
    ) async throws -> SentGroupMessage {
        try await self.post(.text(text), in: state, messageID: messageID, sequence: sequence, as: unlocked)
    }

    /// Seals and posts `content` for the other members of `state` under the group's disappearing timer.
    ///
    /// A text or an attachment is kept in the history as sent, with every member it went to (their receipts count
    /// there); a `settings` message sets the group's timer here once the relay took it (it never comes back to its
    /// sender).
    /// - Parameter sentAt: the envelope's `sentAt`; an attachment's is taken before its upload, so its blob expires
    ///   with it.
    func post(
        _ content: MessageContent,
        in state: GroupState,
        messageID: UUID = Envelope.newMessageID(),
        sequence: UInt64? = nil,
        sentAt: Date = Date(),
        as unlocked: Unlocked
    ) async throws -> SentGroupMessage {
        let recipients = state.tokens.filter { $0 != unlocked.token }
        guard !recipients.isEmpty else {
            throw WotsError(.invalidInput, "you are the only member of \(state.name); nothing was sent")
        }
        let history = try self.openHistory(unlocked)
        let peer = try Self.historyPeer(of: state.id)
        let key = MessageKey(sender: unlocked.token, id: messageID)
        var timer = UInt32(clamping: try history.disappearAfter(with: peer))
        if case .settings(let seconds) = content { timer = seconds }
        let kept = content.wantsReceipts
        let (sealed, receipt) = try await self.postGroup(
            content,
            naming: state,
            to: recipients,
            messageID: messageID,
            sequence: sequence,
            sentAt: sentAt,
            disappearAfter: timer,
            as: unlocked,
            beforePosting: { envelope in
                guard kept else { return }
                try history.record(
                    HistoryEntry(
                        peer: peer,
                        sender: unlocked.token,
                        id: messageID,
                        sentAt: envelope.header.sentAt,
                        expiresAt: envelope.header.expiresAt,
                        status: .sent,
                        content: try MessageBody(content).encoded()
                    )
                )
                try history.recordRecipients(of: key, recipients)
            },
            afterFailure: { if kept { try? history.forget(key) } }
        )
        if case .settings(let seconds) = content {
            try history.setDisappearAfter(
                Int(seconds),
                with: peer,
                setAt: sealed.envelope.header.sentAt,
                setBy: unlocked.token
            )
        }
        return SentGroupMessage(
            id: sealed.envelope.header.messageID,
            group: state.id,
            groupName: state.name,
            recipients: receipt.recipients,
            receivedAt: receipt.receivedAt
        )
    }

    /// A group's conversation is kept in the history under its id's 16 bytes, as a 1:1 one under the peer's token.
    static func historyPeer(of group: GroupID) throws -> Token { try Token(bytes: group.bytes) }

    /// Seals `content` under the state `named` for `recipients` (each resolved to pinned keys, this account's own
    /// from its profile), takes the next sender sequence, and posts it, retrying transient failures.
    /// - Parameters:
    ///   - named: the state the header names: the current one, or for a `create` the new one itself.
    ///   - sequence: this account's sender sequence; default the next one, taken from the group book here.
    ///   - disappearAfter: the group's timer, carried in the content (the header's `expiresAt` follows from it).
    ///   - beforePosting: keeps what must be stored before the relay can answer.
    ///   - afterFailure: undoes it when the relay refused.
    func postGroup(
        _ content: MessageContent,
        naming named: GroupState,
        to recipients: [Token],
        messageID: UUID = Envelope.newMessageID(),
        sequence: UInt64? = nil,
        sentAt: Date = Date(),
        disappearAfter: UInt32 = 0,
        as unlocked: Unlocked,
        beforePosting: (GroupEnvelope) throws -> Void = { _ in },
        afterFailure: () -> Void = {}
    ) async throws -> (SealedGroupMessage, GroupSendReceipt) {
        let keys = try await self.groupRecipientKeys(recipients, as: unlocked, recorded: named)
        var taken = sequence
        if taken == nil {
            var book = try self.store.groupBook()
            taken = book.takeSequence(in: named.id)
            try self.store.save(book)
        }
        let body = try MessageBody(content, disappearAfter: disappearAfter)
        let sealed = try GroupEnvelope.seal(
            plaintext: try body.encoded(),
            messageID: messageID,
            sentAt: sentAt,
            from: unlocked.token,
            identity: unlocked.identity,
            groupID: named.id,
            membershipVersion: named.version,
            membershipStateHash: named.stateHash,
            senderSequence: taken ?? 1,
            to: keys,
            expiresAfter: body.expiresAfter
        )
        try beforePosting(sealed.envelope)
        do {
            let receipt = try await self.retryingTransientFailures {
                try await self.relay.sendGroup(GroupSendRequest(body: sealed.envelope, slots: sealed.slots))
            }
            return (sealed, receipt)
        } catch {
            afterFailure()
            throw Self.retryHint(error, messageID: messageID)
        }
    }

    /// Each recipient's keys as pinned: this account's own from its profile; a member never seen before is looked up
    /// by token, proven by the log and pinned, unless `recorded` (the group state) records another key for it; a
    /// member whose published key differs from the pinned one is refused.
    /// - Throws: `key_changed` naming the member and `wots trust NICK`, `unknown_token` for a deleted account.
    func groupRecipientKeys(
        _ tokens: [Token],
        as unlocked: Unlocked,
        recorded: GroupState? = nil
    ) async throws -> [GroupRecipientKeys] {
        var book = try self.store.contactBook()
        var pinnedNow = false
        var keys: [GroupRecipientKeys] = []
        for token in tokens {
            if token == unlocked.token {
                keys.append(GroupRecipientKeys(token: token, publicKeys: unlocked.profile.publicKeys))
                continue
            }
            let entry = try await self.verifiedEntry(token: token)
            if book.contact(token: token) == nil, let fingerprint = recorded?.member(token)?.fingerprint,
                fingerprint != entry.fingerprint
            {
                throw WotsError(
                    .keyChanged,
                    "\(entry.nickname)'s key \(entry.fingerprint.grouped) is not the one the group recorded "
                        + "(\(fingerprint.grouped)); check `wots verify \(entry.nickname)` with them, then run "
                        + "`wots trust \(entry.nickname)`"
                )
            }
            if try book.check(entry) { pinnedNow = true }
            keys.append(GroupRecipientKeys(token: token, publicKeys: entry.publicKeys))
        }
        if pinnedNow { try self.store.save(book) }
        return keys
    }
}
