import Foundation
import WotsCore

/// Group slots on the live stream: one group's conversation (`wots chat --group`), which also sends lines, files,
/// timer changes and typing, or every group at once (`wots listen`). Holds the group book only in synchronous steps,
/// so a line's sender sequence is never lost to a slot taken in meanwhile.
actor GroupSession {
    let messenger: Messenger
    let unlocked: Messenger.Unlocked
    /// The group whose events are shown; nil: every group's.
    let group: GroupID?
    /// Keeps what arrives in the history and answers it with receipts.
    let keeper: ConversationKeeper
    let downloads: AttachmentSaver?
    let progress: TransferProgress?
    var opener: MessageOpener

    init(
        messenger: Messenger,
        unlocked: Messenger.Unlocked,
        group: GroupID?,
        keeper: ConversationKeeper,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil
    ) throws {
        self.messenger = messenger
        self.unlocked = unlocked
        self.group = group
        self.keeper = keeper
        self.downloads = downloads
        self.progress = progress
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

    /// Takes in one delivered slot; an event of a group not shown here is kept for `wots inbox`. A message kept here
    /// is answered with a `delivered` receipt, and, shown in a group's chat, with a `read` one (unless read receipts
    /// are off).
    /// - Returns: the event (nil for a slot seen before) and whether to acknowledge the slot.
    func take(_ delivered: DeliveredGroupMessage) async throws -> (event: GroupEvent?, acknowledge: Bool) {
        let store = self.messenger.store
        if let book = try? store.contactBook() { self.opener.contacts = book }
        var opener = self.opener
        let current = try store.groupBook().chain(delivered.body.header.groupID)?.current
        let slot = try await self.messenger.openGroupSlot(
            delivered,
            with: &opener,
            as: self.unlocked,
            current: current,
            downloads: self.downloads,
            progress: self.progress
        )
        self.opener = opener
        guard let slot else { return (nil, true) }
        if slot.opened != nil, !slot.message.acknowledge { return (nil, false) }  // its file, next time
        var book = try store.groupBook()
        var event = try self.messenger.take(slot, into: &book, as: self.unlocked.token, history: self.keeper.history)
        let shown = self.group == nil || event.group == self.group
        if !shown { book.queueOnce(event) }
        try store.save(book)
        if self.opener.contactsChanged { try store.save(self.opener.contacts) }
        if slot.message.acknowledge {
            self.opener.markSeen(slot.message.key)
            try store.save(self.opener.seen)
            if event.wantsReceipts {
                await self.keeper.queueDelivered(groupMessage: event.key)
                if shown, self.group != nil { await self.keeper.markRead(groupMessage: event.key) }
                await self.keeper.flushReceipts()
            }
        }
        if shown, event.kind == .message { event = try self.messenger.readBack(event, from: self.keeper.history) }
        return (shown ? event : nil, slot.message.acknowledge)
    }

    /// The group this chat is in, as it stands now.
    /// - Throws: `invalid_input` once this account left or was removed, or is the only member.
    func currentState() throws -> GroupState {
        let book = try self.messenger.store.groupBook()
        guard let group = self.group, let chain = book.chain(group), chain.isMember, chain.current.members.count > 1
        else {
            throw WotsError(.invalidInput, "you are no longer a member of this group, or its only one; not sent")
        }
        return chain.current
    }

    /// Sends a line to the group's other members as it stands now.
    /// - Throws: `invalid_input` once this account left or was removed, and what `Messenger.post` throws.
    func send(_ text: String) async throws -> SentGroupMessage {
        try Messenger.validateMessage(text)
        return try await self.send(.text(text))
    }

    /// Sends `content` (a text, an attachment, a timer change) to the group's other members as it stands now.
    func send(_ content: MessageContent, sentAt: Date = Date()) async throws -> SentGroupMessage {
        let state = try self.currentState()
        var book = try self.messenger.store.groupBook()
        let sequence = book.takeSequence(in: state.id)
        try self.messenger.store.save(book)
        return try await self.messenger.post(
            content,
            in: state,
            sequence: sequence,
            sentAt: sentAt,
            as: self.unlocked
        )
    }
}
