import Foundation
import WotsCore

extension Messenger {
    /// Takes in the group mailbox, then hands over every group event not shown yet, oldest first: messages (their
    /// text read back from the history), membership changes and refusals.
    /// - Parameter keep: leave the events to be shown again next time (the slots are acknowledged either way, once
    ///   stored here).
    public func groupInbox(keep: Bool) async throws -> [GroupEvent] {
        let unlocked = try await self.unlock()
        try await self.syncGroups(unlocked)
        var book = try self.store.groupBook()
        let history = try self.openHistory(unlocked)
        let events = try book.unshown.map { event in
            var shown = event
            if event.kind == .message, let entry = try history.entry(event.key),
                case .text(let text) = try? MessageBody(decoding: entry.content).content
            {
                shown.text = text
            }
            return shown
        }
        if !keep, !events.isEmpty {
            book.clearUnshown()
            try self.store.save(book)
        }
        return events
    }

    /// Fetches the group mailbox page by page; opens each slot; applies updates and admits messages through the
    /// group's chain; keeps messages in the history and the events in the book; then acknowledges what was stored.
    /// A message from a changed key stays in the mailbox until the key is trusted, as in 1:1.
    /// - Returns: how many new group messages were taken in.
    @discardableResult
    func syncGroups(_ unlocked: Unlocked) async throws -> Int {
        var opener = MessageOpener(
            relay: self.relay,
            token: unlocked.token,
            identity: unlocked.identity,
            contacts: try self.store.contactBook(),
            seen: try self.store.seenMessages(),
            restoredAt: unlocked.profile.restoredAt,
            auditor: self.auditor
        )
        let history = try self.openHistory(unlocked)
        var book = try self.store.groupBook()
        var taken = 0
        var after: Int64 = 0
        while true {
            let page = try await self.relay.groupMailbox(after: after, limit: 100).messages
            guard !page.isEmpty else { break }
            var acknowledge: [MessageKey] = []
            for delivered in page {
                after = max(after, delivered.seq)
                let known = book.chain(delivered.body.header.groupID)?.current.tokens ?? []
                guard let slot = try await self.openGroupSlot(delivered, with: &opener, as: unlocked, known: known)
                else {
                    acknowledge.append(delivered.body.header.messageKey)
                    continue
                }
                taken += 1
                let message = slot.message
                let event = try self.take(slot, into: &book, as: unlocked.token, history: history)
                book.queueOnce(event)
                if message.acknowledge {
                    opener.markSeen(message.key)
                    acknowledge.append(message.key)
                }
            }
            if opener.contactsChanged { try self.store.save(opener.contacts) }
            try self.store.save(book)
            try self.store.save(opener.seen)
            if !acknowledge.isEmpty { try await self.relay.acknowledgeGroup(acknowledge) }
        }
        return taken
    }

    /// One group slot opened: the message (with a problem when unreadable), its verified header and content, and
    /// the nicknames of the members a membership line will mention.
    struct OpenedGroupSlot {
        var message: ReceivedMessage
        var opened: (header: GroupEnvelopeHeader, body: MessageBody)?
        var claimed: GroupEnvelopeHeader
        var names: [Token: Nickname]
    }

    /// Opens one delivered slot (the sender's keys found as for 1:1) and looks up the names its line needs; touches
    /// no local file, so callers can hold the group book only around `take`.
    /// - Parameter known: the members of the group's current state here, if any.
    /// - Returns: nil when its (sender, id) was seen before.
    func openGroupSlot(
        _ delivered: DeliveredGroupMessage,
        with opener: inout MessageOpener,
        as unlocked: Unlocked,
        known: [Token]
    ) async throws -> OpenedGroupSlot? {
        guard let (message, opened) = try await opener.open(delivered) else { return nil }
        var names: [Token: Nickname] = [:]
        if let (header, body) = opened, case .groupUpdate(let update) = body.content {
            for token in Set(update.state.tokens + known + [header.sender]) where token != unlocked.token {
                names[token] = await opener.nickname(of: token)
            }
        }
        for contact in opener.contacts.contacts where names[contact.token] == nil {
            names[contact.token] = contact.nickname
        }
        return OpenedGroupSlot(message: message, opened: opened, claimed: delivered.body.header, names: names)
    }

    /// Turns one opened (or unreadable) group slot into the event to show, applying it to `book` and keeping a
    /// message in the history.
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
        let event = book.receive(header, body, from: message.from, owner: owner, name: name)
        if event.kind == .message {
            try history.record(
                HistoryEntry(
                    peer: try Self.historyPeer(of: header.groupID),
                    sender: header.sender,
                    id: header.messageID,
                    sentAt: header.sentAt,
                    expiresAt: header.expiresAtMilliseconds == 0
                        ? nil : Date(timeIntervalSince1970: Double(header.expiresAtMilliseconds) / 1000),
                    status: .received,
                    content: try body.encoded()
                )
            )
        }
        return event
    }
}
