import Foundation
import WotsCore

/// Group slots on the live stream: one group's conversation (`wots chat --group`), which also sends lines, or every
/// group at once (`wots listen`). Holds the group book only in synchronous steps, so a line's sender sequence is never
/// lost to a slot taken in meanwhile.
actor GroupSession {
    let messenger: Messenger
    let unlocked: Messenger.Unlocked
    /// The group whose events are shown; nil: every group's.
    let group: GroupID?
    private let history: ConversationHistory
    private var opener: MessageOpener

    init(messenger: Messenger, unlocked: Messenger.Unlocked, group: GroupID?) throws {
        self.messenger = messenger
        self.unlocked = unlocked
        self.group = group
        self.history = try messenger.openHistory(unlocked)
        self.opener = MessageOpener(
            relay: messenger.relay,
            token: unlocked.token,
            identity: unlocked.identity,
            contacts: try messenger.store.contactBook(),
            seen: try messenger.store.seenMessages(),
            restoredAt: unlocked.profile.restoredAt,
            auditor: messenger.auditor
        )
    }

    /// Takes in one delivered slot; an event of a group not shown here is kept for `wots inbox`.
    /// - Returns: the event (nil for a slot seen before) and whether to acknowledge the slot.
    func take(_ delivered: DeliveredGroupMessage) async throws -> (event: GroupEvent?, acknowledge: Bool) {
        let store = self.messenger.store
        if let book = try? store.contactBook() { self.opener.contacts = book }
        var opener = self.opener
        let known = try store.groupBook().chain(delivered.body.header.groupID)?.current.tokens ?? []
        let slot = try await self.messenger.openGroupSlot(delivered, with: &opener, as: self.unlocked, known: known)
        self.opener = opener
        guard let slot else { return (nil, true) }
        var book = try store.groupBook()
        let event = try self.messenger.take(slot, into: &book, as: self.unlocked.token, history: self.history)
        let shown = self.group == nil || event.group == self.group
        if !shown { book.queueOnce(event) }
        try store.save(book)
        if self.opener.contactsChanged { try store.save(self.opener.contacts) }
        if slot.message.acknowledge {
            self.opener.markSeen(slot.message.key)
            try store.save(self.opener.seen)
        }
        return (shown ? event : nil, slot.message.acknowledge)
    }

    /// Sends a line to the group's other members as it stands now.
    /// - Throws: `invalid_input` once this account left or was removed, and what `Messenger.postText` throws.
    func send(_ text: String) async throws -> SentGroupMessage {
        try Messenger.validateMessage(text)
        var book = try self.messenger.store.groupBook()
        guard let group = self.group, let chain = book.chain(group), chain.isMember, chain.current.members.count > 1
        else {
            throw WotsError(.invalidInput, "you are no longer a member of this group, or its only one; not sent")
        }
        let sequence = book.takeSequence(in: group)
        try self.messenger.store.save(book)
        return try await self.messenger.postText(text, in: chain.current, sequence: sequence, as: self.unlocked)
    }
}
