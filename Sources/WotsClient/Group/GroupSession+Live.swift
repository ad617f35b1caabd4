import Foundation
import WotsCore
import WotsCrypto

extension GroupSession {
    /// How far from this machine's clock a typing indicator's `sentAt` may be before it is ignored: the relay could
    /// hand an old one out again (ephemeral messages are not deduplicated).
    static let typingFreshness: TimeInterval = 60

    /// Tells the group's other members this side started or stopped typing: one group envelope (one signature, a slot
    /// per member whose key is pinned here) sent as an ephemeral `send_group` frame, never stored by the relay.
    /// Nothing is sent while the stream is down, or once this account is no longer a member.
    func sendTyping(_ typing: MessageContent.TypingState, link: StreamLink) async throws {
        guard link.isConnected, let state = try? self.currentState() else { return }
        let contacts = try self.messenger.store.contactBook()
        let keys = state.tokens.filter { $0 != self.unlocked.token }.compactMap { token in
            contacts.contact(token: token).map { GroupRecipientKeys(token: token, publicKeys: $0.publicKeys) }
        }
        guard !keys.isEmpty else { return }
        let sealed = try GroupEnvelope.seal(
            plaintext: try MessageBody(.typing(typing)).encoded(),
            from: self.unlocked.token,
            identity: self.unlocked.identity,
            groupID: state.id,
            membershipVersion: state.version,
            membershipStateHash: state.stateHash,
            senderSequence: try self.messenger.store.groupBook().nextSequence(in: state.id),
            to: keys
        )
        try await link.sendEphemeral(GroupSendRequest(body: sealed.envelope, slots: sealed.slots))
    }

    /// An ephemeral group message from the stream: a member typing in this chat's group, or nil. Only `typing`
    /// content counts this way, only from a member of the state it names and of the current one, and only when it is
    /// fresh; nothing is stored or acknowledged.
    func takeEphemeral(_ delivered: DeliveredGroupMessage) async -> ConversationEvent? {
        let header = delivered.body.header
        guard let group = self.group, header.groupID == group,
            abs(header.sentAt.timeIntervalSince(self.messenger.configuration.now())) <= Self.typingFreshness,
            let chain = try? self.messenger.store.groupBook().chain(group), chain.admitsEphemeral(header)
        else { return nil }
        var opener = self.opener
        guard let (message, opened) = try? await opener.open(delivered), message.problem == nil,
            case .typing(let state) = opened?.body.content
        else { return nil }
        return .typing(peer: header.sender, state)
    }

    /// Sets the group's disappearing timer for every member (a `settings` group message; any member may).
    func setTimer(_ seconds: UInt32) async throws -> SentGroupMessage {
        try await self.send(.settings(disappearAfter: seconds))
    }

    /// Encrypts and uploads the file at `path` once for every other member, then sends the attachment message under
    /// the group's timer, as `wots send --group --file` does.
    func sendFile(at path: String, progress: TransferProgress?) async throws -> SentGroupMessage {
        let state = try self.currentState()
        let sentAt = Date()
        let reference = try await self.messenger.uploadGroupAttachment(
            at: path,
            caption: nil,
            in: state,
            sentAt: sentAt,
            as: self.unlocked,
            progress: progress
        )
        return try await self.send(.attachment(reference), sentAt: sentAt)
    }
}
