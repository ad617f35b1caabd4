import Foundation
import WotsCore

extension Messenger {
    /// One group slot opened: the message (with a problem when unreadable), its verified header and content, and
    /// the nicknames of the members a membership line will mention.
    struct OpenedGroupSlot {
        var message: ReceivedMessage
        var opened: (header: GroupEnvelopeHeader, body: MessageBody)?
        var claimed: GroupEnvelopeHeader
        var names: [Token: Nickname]
        /// Its `expiresAt` had come when it arrived: applied to the chain, never stored or shown.
        var expired = false
    }

    /// Opens one delivered slot (the sender's keys found as for 1:1) and looks up the names its line needs; an
    /// attachment is fetched, checked and saved with `downloads`. Touches no local file but the download folder, so
    /// callers can hold the group book only around `take`.
    /// - Parameter current: the group's current state here, if any: the members a line names, and the key it
    ///   recorded for the sender.
    /// - Returns: nil when its (sender, id) was seen before.
    func openGroupSlot(
        _ delivered: DeliveredGroupMessage,
        with opener: inout MessageOpener,
        as unlocked: Unlocked,
        current: GroupState?,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil
    ) async throws -> OpenedGroupSlot? {
        let recorded = current?.member(delivered.body.header.sender)?.fingerprint
        guard let (message, opened) = try await opener.open(delivered, recorded: recorded) else { return nil }
        var names: [Token: Nickname] = [:]
        if let (header, body) = opened, case .groupUpdate(let update) = body.content {
            let known = current?.tokens ?? []
            for token in Set(update.state.tokens + known + [header.sender]) where token != unlocked.token {
                names[token] = await opener.nickname(of: token)
            }
        }
        for contact in opener.contacts.contacts where names[contact.token] == nil {
            names[contact.token] = contact.nickname
        }
        var slot = OpenedGroupSlot(message: message, opened: opened, claimed: delivered.body.header, names: names)
        if let expiresAt = opened?.header.expiresAt, expiresAt <= self.configuration.now() {
            slot.expired = true  // its file is never fetched
        } else {
            await self.fetchAttachment(of: &slot.message, with: downloads, progress: progress)
        }
        return slot
    }

    /// Turns one opened (or unreadable) group slot into the event to show, applying it to `book`: a membership change
    /// to the chain, a timer change to the group's conversation (ordered as in 1:1 conversations), and a message to
    /// the history.
    func take(
        _ slot: OpenedGroupSlot,
        into book: inout GroupBook,
        as owner: Token,
        history: ConversationHistory
    ) throws -> GroupEvent {
        let (message, opened, claimed, names) = (slot.message, slot.opened, slot.claimed, slot.names)
        let name: (Token) -> String = { token in
            token == owner ? "you" : names[token]?.value ?? "token \(token)"
        }
        guard let (header, body) = opened else {
            return GroupEvent(
                kind: .refused,
                group: claimed.groupID,
                groupName: book.chain(claimed.groupID)?.current.name
                    ?? "group \(claimed.groupID.description.prefix(8))",
                id: message.id,
                from: message.from,
                fromToken: message.fromToken,
                sentAt: message.sentAt,
                line: "could not read a message from \(message.senderName): "
                    + (message.problem?.message ?? "unreadable")
            )
        }
        var event = book.receive(header, body, from: message.from, owner: owner, name: name)
        event.expiresAt = header.expiresAt
        let peer = try Self.historyPeer(of: header.groupID)
        if case .settings(let seconds) = body.content, event.kind == .membership {
            let applied = try history.setDisappearAfter(
                Int(seconds),
                with: peer,
                setAt: header.sentAt,
                setBy: header.sender
            )
            if !applied { event.line = (event.line ?? "") + " (a later change is kept)" }
        }
        if slot.expired, event.kind == .message {
            event.type = nil
            event.line = "a disappearing message from \(name(header.sender)) expired before it was shown"
            return event
        }
        guard event.kind == .message else { return event }
        event.savedTo = message.savedTo
        if let problem = message.problem { event.warnings.append(problem.message) }
        try history.record(
            HistoryEntry(
                peer: peer,
                sender: header.sender,
                id: header.messageID,
                sentAt: header.sentAt,
                expiresAt: header.expiresAt,
                status: .received,
                content: try body.encoded()
            )
        )
        return event
    }
}
