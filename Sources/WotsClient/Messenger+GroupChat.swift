import Foundation
public import WotsCore

extension Messenger {
    /// An interactive group conversation: takes in the group mailbox, then every line from `input` is sent to the
    /// group's other members (`/disappear 5m|off` sets the group's timer, `/send PATH` sends a file once for all,
    /// `/help` lists them), keystrokes become typing indicators (one ephemeral group envelope, throttled as in 1:1),
    /// and the live stream (opened with `?groups=true`) brings the group's messages and changes to `event` and the
    /// members' typing, receipts for this account's messages and disappearing messages to `activity`. Ends when the
    /// input ends.
    ///
    /// Group slots of other groups are taken in and kept for `wots inbox`; of the 1:1 messages only receipts are
    /// taken, the rest stay in the mailbox.
    /// - Parameters:
    ///   - group: the group's name or an id prefix.
    ///   - readReceipts: send `read` receipts for the messages shown (when the account setting allows). Default true.
    ///   - downloads: where received attachments are saved; nil saves none.
    ///   - input: opens the input; called only once the account is unlocked and the group found.
    ///   - warning: told, once the chat opens, of each member whose key is not the one the group recorded.
    ///   - sent: told each line, file or timer change the relay took.
    ///   - failed: called when a line could not be sent (the chat goes on).
    /// - Throws: `not_found` / `invalid_input` for the group, what the stream throws.
    public func groupChat(
        _ group: String,
        readReceipts: Bool = true,
        downloads: AttachmentSaver? = nil,
        transfers: ChatTransfers = ChatTransfers(),
        input: @Sendable () -> AsyncStream<ChatInput>,
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        event: @escaping @Sendable (GroupEvent) async throws -> Void,
        activity: @escaping @Sendable (ConversationEvent) async -> Void = { _ in },
        warning: @escaping @Sendable (String) -> Void = { _ in },
        sent: @escaping @Sendable (SentGroupMessage) -> Void = { _ in },
        failed: @escaping @Sendable (WotsError) -> Void,
        notice: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws {
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: readReceipts)
        try await self.syncGroups(unlocked, keeper: keeper, downloads: downloads, progress: transfers.download)
        let chain = try self.store.groupBook().resolve(group)
        for line in await self.keyWarnings(for: chain.current, as: unlocked) { warning(line) }
        let session = try GroupSession(
            messenger: self,
            unlocked: unlocked,
            group: chain.current.id,
            keeper: keeper,
            downloads: downloads,
            progress: transfers.download
        )
        let link = StreamLink()
        let typing = GroupTypingSender(session: session, link: link)
        let lines = input()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await self.runGroupStream(session, link: link, status: status, event: event, activity: activity)
            }
            tasks.addTask {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    await typing.tick()
                    let gone = try await keeper.removeExpired()
                    if gone > 0 { await activity(.expired(count: gone)) }
                }
            }
            tasks.addTask {
                for await item in lines {
                    guard case .line(let line) = item else {
                        await typing.keystroke()
                        continue
                    }
                    let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.isEmpty else { continue }
                    await typing.sent()
                    do {
                        try await self.handleGroupLine(text, session: session, transfers: transfers, sent: sent) {
                            notice($0)
                        }
                    } catch let error as WotsError {
                        failed(error)
                    }
                }
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    /// The live stream of a group chat: group slots to `event`, typing and the receipts for this account's messages
    /// to `activity`; other 1:1 messages stay in the mailbox.
    private func runGroupStream(
        _ session: GroupSession,
        link: StreamLink,
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        event: @escaping @Sendable (GroupEvent) async throws -> Void,
        activity: @escaping @Sendable (ConversationEvent) async -> Void
    ) async throws {
        let state = try self.listenerState(for: session.unlocked)
        try await StreamClient(relay: self.relay, logger: self.logger).run(
            status: status,
            link: link,
            handleGroup: { delivered in
                let taken = try await session.take(delivered)
                if let shown = taken.event { try await event(shown) }
                return taken.acknowledge
            },
            ephemeralGroup: { delivered in
                if let typing = await session.takeEphemeral(delivered) { await activity(typing) }
            },
            handle: { delivered in
                guard let message = try await state.open(delivered) else { return true }
                guard case .receipt = message.body?.content else { return false }
                if let happened = try await session.keeper.receive(message) { await activity(happened) }
                try await state.markSeen(message.key)
                return true
            }
        )
    }

    /// One typed line of a group chat: a command, or a text for the group.
    private func handleGroupLine(
        _ text: String,
        session: GroupSession,
        transfers: ChatTransfers,
        sent: @Sendable (SentGroupMessage) -> Void,
        notice: @Sendable (String) -> Void
    ) async throws {
        switch try ChatCommand(text) {
        case .disappear(let seconds)?:
            sent(try await session.setTimer(seconds))
            notice("disappearing messages in this group: " + GroupBook.describe(timer: seconds))
        case .send(let path)?:
            sent(try await session.sendFile(at: path, progress: transfers.upload))
        case .help?:
            notice(ChatCommand.usage)
        case nil:
            sent(try await session.send(text))
        }
    }
}

/// Sends this side's typing indicators in a group chat, throttled as in 1:1 chats (`TypingThrottle`).
actor GroupTypingSender {
    let session: GroupSession
    let link: StreamLink
    private var throttle = TypingThrottle<ContinuousClock.Instant>()

    init(session: GroupSession, link: StreamLink) {
        self.session = session
        self.link = link
    }

    func keystroke() async {
        if self.throttle.keystroke(at: .now) { await self.send(.started) }
    }

    func tick() async {
        if self.throttle.tick(at: .now) { await self.send(.stopped) }
    }

    func sent() async {
        if self.throttle.sent() { await self.send(.stopped) }
    }

    private func send(_ state: MessageContent.TypingState) async {
        try? await self.session.sendTyping(state, link: self.link)
    }
}
