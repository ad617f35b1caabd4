import Foundation
import WotsCore

extension Messenger {
    /// Streams incoming messages until cancelled: each is verified, decrypted, kept in the history and answered with
    /// a `delivered` receipt, handed to `show`, then acknowledged. Group messages and membership changes of every
    /// group come the same way (the stream is opened with `?groups=true`) and go to `group`.
    /// - Parameters:
    ///   - status: connection changes, for a status line on stderr.
    ///   - show: called once per new message; it should print and flush before returning.
    ///   - event: told what else happened (receipts, timers, disappearing messages that expired).
    public func listen(
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil,
        show: @escaping @Sendable (ReceivedMessage) async throws -> Void,
        event: @escaping @Sendable (ConversationEvent) async throws -> Void = { _ in },
        group: @escaping @Sendable (GroupEvent) async throws -> Void = { _ in },
        expired: @escaping @Sendable (ExpiredMessage) async throws -> Void = { _ in }
    ) async throws {
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: false)
        try await self.reportExpiredMessages(to: expired)
        let groups = try GroupSession(
            messenger: self,
            unlocked: unlocked,
            group: nil,
            keeper: keeper,
            downloads: downloads,
            progress: progress
        )
        try await self.converse(
            keeper: keeper,
            unlocked: unlocked,
            status: status,
            groups: { delivered in
                let taken = try await groups.take(delivered)
                if let shown = taken.event { try await group(shown) }
                return taken.acknowledge
            },
            downloads: downloads,
            progress: progress,
            handle: { happened in
                if case .message(let message) = happened { try await show(message) } else { try await event(happened) }
            }
        )
    }

    /// Runs the live stream for `keeper`: every message and ephemeral frame becomes an event for `handle`; receipts
    /// go out after each message; disappearing messages are deleted on time (checked every second).
    func converse(
        keeper: ConversationKeeper,
        unlocked: Unlocked,
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        groups: (@Sendable (DeliveredGroupMessage) async throws -> Bool)? = nil,
        link: StreamLink? = nil,
        downloads: AttachmentSaver? = nil,
        progress: TransferProgress? = nil,
        handle: @escaping @Sendable (ConversationEvent) async throws -> Void
    ) async throws {
        let gone = try await keeper.removeExpired()
        if gone > 0 { try await handle(.expired(count: gone)) }
        let state = try self.listenerState(for: unlocked)
        let stream = StreamClient(relay: self.relay, logger: self.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await stream.run(
                    status: status,
                    link: link,
                    ephemeral: { delivered in
                        guard let message = try? await state.open(delivered),
                            let happened = await keeper.receiveEphemeral(message)
                        else { return }
                        try? await handle(happened)
                    },
                    handleGroup: groups,
                    handle: { delivered in
                        guard var message = try await state.open(delivered) else { return true }
                        await self.fetchAttachment(of: &message, with: downloads, progress: progress)
                        await self.fetchAvatar(of: &message)
                        if let happened = try await keeper.receive(message) { try await handle(happened) }
                        await keeper.flushReceipts()
                        if message.acknowledge { try await state.markSeen(message.key) }
                        return message.acknowledge
                    }
                )
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    let gone = try await keeper.removeExpired()
                    if gone > 0 { try await handle(.expired(count: gone)) }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}

extension Messenger {
    /// Hands each notice of an expired message to `expired`, then clears it at the relay.
    func reportExpiredMessages(to expired: @Sendable (ExpiredMessage) async throws -> Void) async throws {
        let messages = try await self.fetchExpiredMessages(keep: true)
        guard !messages.isEmpty else { return }
        for message in messages { try await expired(message) }
        try await self.relay.clearNotices(messages.map(\.id))
    }
}

/// The listener's mutable state (contacts pinned on first use, ids seen), touched across awaits.
extension Messenger {
    /// The state that opens, de-duplicates and acknowledges streamed messages for the unlocked identity.
    func listenerState(for unlocked: Unlocked) throws -> ListenerState {
        ListenerState(
            store: self.store,
            opener: MessageOpener(
                relay: self.relay,
                token: unlocked.token,
                identity: unlocked.identity,
                contacts: try self.store.contactBook(),
                seen: try self.store.seenMessages(),
                restoredAt: unlocked.profile.restoredAt,
                auditor: self.auditor
            )
        )
    }
}

actor ListenerState {
    private let store: LocalStore
    private var opener: MessageOpener

    init(store: LocalStore, opener: MessageOpener) {
        self.store = store
        self.opener = opener
    }

    /// Opens a delivered message; nil for one shown before.
    func open(_ delivered: DeliveredMessage) async throws -> ReceivedMessage? {
        // Pick up contacts trusted by another wots process since the last message.
        if let book = try? self.store.contactBook() { self.opener.contacts = book }
        var opener = self.opener
        let message = try await opener.open(delivered)
        self.opener = opener
        if self.opener.contactsChanged { try self.store.save(self.opener.contacts) }
        return message
    }

    func markSeen(_ key: MessageKey) throws {
        self.opener.markSeen(key)
        try self.store.save(self.opener.seen)
    }
}
