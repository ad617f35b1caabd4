import Foundation
import WotsCore

extension Messenger {
    /// Takes in the group mailbox, then hands over every group event not shown yet, oldest first: messages (their
    /// text and attachment read back from the history), membership and timer changes, and refusals. Messages whose
    /// disappearing timer ran out meanwhile are left out.
    /// - Parameters:
    ///   - keep: leave the events to be shown again next time (the slots are acknowledged either way, once stored
    ///     here; no `read` receipts are sent).
    ///   - readReceipts: tell each message's sender that a person saw it (when the account setting allows).
    ///   - downloads: where attachments are saved (each checked, then acknowledged to the relay); nil saves none.
    ///   - progress: told the bytes of each attachment downloaded so far.
    public func groupInbox(
        keep: Bool,
        readReceipts: Bool = false,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil
    ) async throws -> [GroupEvent] {
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: readReceipts)
        try await self.syncGroups(unlocked, keeper: keeper, downloads: downloads, progress: progress)
        var book = try self.store.groupBook()
        let now = self.configuration.now()
        let events = try book.unshown.compactMap { event -> GroupEvent? in
            guard event.kind == .message else { return event }
            if let expiresAt = event.expiresAt, expiresAt <= now { return nil }
            return try self.readBack(event, from: keeper.history)
        }
        if !keep {
            for event in events where event.wantsReceipts { await keeper.markRead(groupMessage: event.key) }
            if !book.unshown.isEmpty {
                book.clearUnshown()
                try self.store.save(book)
            }
        }
        await keeper.flushReceipts()
        return events
    }

    /// A message event with what it said read back from the history: its text, or its attachment and caption.
    func readBack(_ event: GroupEvent, from history: ConversationHistory) throws -> GroupEvent {
        var shown = event
        guard let entry = try history.entry(event.key),
            let content = try? MessageBody(decoding: entry.content).content
        else { return shown }
        switch content {
        case .text(let text): shown.text = text
        case .attachment(let reference):
            shown.text = reference.caption
            shown.attachment = GroupEvent.AttachmentSummary(reference)
        default: break
        }
        return shown
    }

    /// Fetches the group mailbox page by page; opens each slot; applies updates and admits messages through the
    /// group's chain; keeps messages in the history and the events in the book; then acknowledges what was stored
    /// and tells each message's sender it was delivered (a 1:1 receipt). A message from a changed key stays in the
    /// mailbox until the key is trusted, as in 1:1; so does one whose attachment could not be fetched for now.
    /// - Parameter keeper: sends the receipts; default one that sends only `delivered`.
    /// - Returns: how many new group messages were taken in.
    @discardableResult
    func syncGroups(
        _ unlocked: Unlocked,
        keeper: ConversationKeeper? = nil,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil
    ) async throws -> Int {
        var opener = MessageOpener(
            relay: self.relay,
            token: unlocked.token,
            identity: unlocked.identity,
            contacts: try self.store.contactBook(),
            seen: try self.store.seenMessages(),
            restoredAt: unlocked.profile.restoredAt,
            auditor: self.auditor
        )
        let keeper = try keeper ?? ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: false)
        var book = try self.store.groupBook()
        var taken = 0
        var after: Int64 = 0
        while true {
            let page = try await self.relay.groupMailbox(after: after, limit: 100).messages
            guard !page.isEmpty else { break }
            var acknowledge: [MessageKey] = []
            for delivered in page {
                after = max(after, delivered.seq)
                guard
                    let slot = try await self.openGroupSlot(
                        delivered,
                        with: &opener,
                        as: unlocked,
                        current: book.chain(delivered.body.header.groupID)?.current,
                        downloads: downloads,
                        progress: progress
                    )
                else {
                    acknowledge.append(delivered.body.header.messageKey)
                    continue
                }
                // A file the relay could not serve now: the message comes again next time.
                if slot.opened != nil, !slot.message.acknowledge { continue }
                taken += 1
                let event = try self.take(slot, into: &book, as: unlocked.token, history: keeper.history)
                book.queueOnce(event)
                // A message from a changed key is reported and stays in the mailbox until `wots trust`.
                guard slot.message.acknowledge else { continue }
                if event.wantsReceipts { await keeper.queueDelivered(groupMessage: event.key) }
                opener.markSeen(slot.message.key)
                acknowledge.append(slot.message.key)
            }
            if opener.contactsChanged { try self.store.save(opener.contacts) }
            try self.store.save(book)
            try self.store.save(opener.seen)
            if !acknowledge.isEmpty { try await self.relay.acknowledgeGroup(acknowledge) }
        }
        await keeper.flushReceipts()
        return taken
    }
}
