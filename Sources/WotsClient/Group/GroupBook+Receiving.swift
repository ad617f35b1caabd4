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
                event.type = body.content.type
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
                event.type = body.content.type
                switch body.content {
                case .text(let text):
                    event.text = text
                case .attachment(let reference):
                    event.text = reference.caption
                    event.attachment = GroupEvent.AttachmentSummary(reference)
                case .settings(let seconds):
                    // The caller applies it to the group's timer, ordered as in 1:1 conversations.
                    event.kind = .membership
                    event.line = "\(name(header.sender)) set disappearing messages " + Self.describe(timer: seconds)
                default:
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
        case .rename where previous?.name == state.name:
            return "\(name(sender)) set the avatar of \(state.name) to \(state.avatar?.rawValue ?? "none")"
        case .rename:
            return "\(name(sender)) renamed \(previous?.name ?? "the group") to \(state.name)"
        case .rekey:
            let recorded = state.members.filter { member in
                previous?.member(member.token).map { $0.fingerprint != member.fingerprint } ?? false
            }
            if recorded.map(\.token) == [sender] { return "\(name(sender)) recorded a new key" }
            return "\(name(sender)) recorded the new key of \(names(recorded.map(\.token)))"
        }
    }

    /// `off`, or `to 5 minutes`.
    static func describe(timer seconds: UInt32) -> String {
        guard seconds > 0 else { return "off" }
        let units: [(UInt32, String)] = [(86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second")]
        let (size, unit) = units.first { seconds.isMultiple(of: $0.0) } ?? (1, "second")
        let count = seconds / size
        return "to \(count) \(unit)\(count == 1 ? "" : "s")"
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
            let who = name(member)
            return "\(who)'s key is not the one the group recorded: compare `wots verify \(who)` with them, then "
                + "`wots trust \(who)`; an admin records it with `wots group rekey`"
        }
    }
}
