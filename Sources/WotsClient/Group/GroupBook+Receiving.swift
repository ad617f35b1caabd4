import Foundation
import WotsCore

extension GroupBook {
    /// Applies one verified, decrypted group message to the book: a `group_update` goes through the group's chain (or
    /// starts one when it adds this account), anything else is admitted by the chain or refused.
    /// - Parameters:
    ///   - owner: this account.
    ///   - name: how a member is called in the lines shown (a nickname, "you", or the token).
    /// - Returns: the event to show; a `message` event is the one to keep in the history.
    mutating func receive(
        _ header: GroupEnvelopeHeader,
        _ body: MessageBody,
        from sender: Nickname?,
        owner: Token,
        name: (Token) -> String
    ) -> GroupEvent {
        let existing = self.chain(header.groupID)
        var event = GroupEvent(
            kind: .refused,
            group: header.groupID,
            groupName: existing?.current.name ?? "group \(header.groupID.description.prefix(8))",
            id: header.messageID,
            from: sender,
            fromToken: header.sender,
            sentAt: header.sentAt
        )
        let warnings: [GroupWarning]
        // This account's own messages never come back to it, so its own sequence jumps are not gaps.
        do throws(GroupRefusal) {
            if case .groupUpdate(let update) = body.content {
                let previous = existing?.current
                // Once removed, this account missed later updates: being added again starts a new chain.
                let rejoining = existing?.isMember == false && update.state.member(owner) != nil
                if var chain = existing, !rejoining {
                    warnings = try chain.receive(update, in: header).warnings
                    self.store(chain)
                } else {
                    self.store(try GroupChain(joining: update, in: header, as: owner))
                    warnings = []
                }
                event.kind = .membership
                event.groupName = update.state.name
                event.line = Self.describe(update, from: previous, by: header.sender, owner: owner, name: name)
            } else {
                guard var chain = existing else {
                    throw GroupRefusal(
                        .unknownState,
                        "a message for group \(header.groupID), which this account never joined"
                    )
                }
                warnings = try chain.admit(header)
                self.store(chain)
                event.kind = .message
                if case .text(let text) = body.content {
                    event.text = text
                } else {
                    event.line = "sent a \(body.content.type) message this client does not show in groups"
                }
            }
        } catch {
            event.line = "refused \(body.content.type) from \(name(header.sender)): \(error.reason)"
            return event
        }
        event.warnings = warnings.compactMap { warning in
            if case .missedMessages(let from, _) = warning, from == owner { return nil }
            return Self.describe(warning, name: name)
        }
        return event
    }

    /// Queues an event unless one for the same message waits already (a message kept in the mailbox comes again).
    mutating func queueOnce(_ event: GroupEvent) {
        guard !self.unshown.contains(where: { $0.key == event.key }) else { return }
        self.queue(event)
    }

    static func describe(
        _ update: GroupUpdate,
        from previous: GroupState?,
        by sender: Token,
        owner: Token,
        name: (Token) -> String
    ) -> String {
        let state = update.state
        // A member who joins by this update never held the previous state: it is the members who joined earlier.
        let before = Set(previous?.tokens ?? state.members.filter { $0.joinedAt < state.version }.map(\.token))
        let after = Set(state.tokens)
        func names(_ tokens: some Sequence<Token>) -> String { tokens.sorted().map(name).joined(separator: ", ") }
        switch update.action {
        case .create:
            return "\(name(sender)) created \(state.name) with \(names(after.subtracting([sender])))"
        case .add:
            return "\(name(sender)) added \(names(after.subtracting(before)))"
        case .remove:
            let removed = before.subtracting(after)
            if removed.contains(owner) { return "you were removed from \(state.name) by \(name(sender))" }
            return "\(name(sender)) removed \(names(removed))"
        case .leave:
            return sender == owner ? "you left \(state.name)" : "\(name(sender)) left"
        case .promote:
            let promoted = state.members.filter { member in
                member.isAdmin && previous?.member(member.token)?.isAdmin == false
            }
            return "\(name(sender)) made \(names(promoted.map(\.token))) admin"
        case .rename:
            return "\(name(sender)) renamed \(previous?.name ?? "the group") to \(state.name)"
        }
    }

    static func describe(_ warning: GroupWarning, name: (Token) -> String) -> String {
        switch warning {
        case .missedMessages(let from, let count):
            return "missed \(count) message\(count == 1 ? "" : "s") from \(name(from))"
        case .recipientsDiffer(let extra, let missing):
            let extraText = extra.isEmpty ? "" : "also sent to \(extra.map(name).joined(separator: ", "))"
            let missingText = missing.isEmpty ? "" : "not sent to \(missing.map(name).joined(separator: ", "))"
            return "recipients differ from the members: "
                + [extraText, missingText].filter { !$0.isEmpty }.joined(
                    separator: "; "
                )
        case .keyChanged(let member):
            return "\(name(member))'s key is not the one the group recorded"
        }
    }
}
