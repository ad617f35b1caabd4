import Foundation
public import WotsCore
import WotsCrypto

/// What the person in a chat did: pressed a key (they are typing) or finished a line.
public enum ChatInput: Sendable, Hashable {
    case keystroke
    case line(String)
}

extension Messenger {
    /// An interactive conversation: every line from `input` is sent to `nickname` (`/disappear 2s|1h|off` sets the
    /// disappearing timer instead, `/send PATH` sends a file, `/help` lists the commands), keystrokes become typing
    /// indicators, and everything that happens streams to `event`. Ends when the input ends.
    /// - Parameters:
    ///   - readReceipts: send `read` receipts for the messages shown (when the account setting allows). Default true.
    ///   - downloads: where received attachments are saved (each checked, then acknowledged); nil saves none.
    ///   - transfers: told the bytes of each upload and download so far.
    ///   - notice: told what `/help` says.
    ///   - input: opens the input; called only once the recipient is looked up and the account unlocked, so nothing
    ///     typed before (the secret above all) can be read as a chat line.
    ///   - event: messages, receipts (`.status`, including `.sent` once the relay accepted a line), typing, timers.
    ///   - failed: called when a line could not be sent (the chat goes on).
    public func chat(
        with nickname: Nickname,
        readReceipts: Bool = true,
        downloads: AttachmentSaver? = nil,
        transfers: ChatTransfers = ChatTransfers(),
        input: @Sendable () -> AsyncStream<ChatInput>,
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        event: @escaping @Sendable (ConversationEvent) async throws -> Void,
        failed: @escaping @Sendable (WotsError) -> Void,
        notice: @escaping @Sendable (String) -> Void = { _ in },
        expired: @escaping @Sendable (ExpiredMessage) async throws -> Void = { _ in }
    ) async throws {
        let recipient = try await self.recipient(nickname)
        let peer = recipient.entry.token
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: readReceipts)
        try await self.reportExpiredMessages(to: expired)
        if recipient.pinnedNow { try? await keeper.sendProfile(to: peer) }
        if let known = try keeper.history.avatar(of: peer) { try await event(.profile(peer: peer, known)) }
        let link = StreamLink()
        let typing = TypingSender(keeper: keeper, peer: peer, link: link)
        let lines = input()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await self.converse(
                    keeper: keeper,
                    unlocked: unlocked,
                    status: status,
                    link: link,
                    downloads: downloads,
                    progress: transfers.download
                ) { happened in
                    try await event(happened)
                    if case .message(let message) = happened, message.fromToken == peer {
                        await keeper.markRead(message)
                        await keeper.flushReceipts()
                    }
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    await typing.tick()
                }
            }
            group.addTask {
                for await item in lines {
                    guard case .line(let line) = item else {
                        await typing.keystroke()
                        continue
                    }
                    let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.isEmpty else { continue }
                    await typing.sent()
                    do {
                        if let command = try ChatCommand(text) {
                            switch command {
                            case .disappear(let seconds):
                                _ = try await keeper.setTimer(seconds, with: peer)
                                try await event(.timer(seconds: seconds, peer: peer, setBy: unlocked.token))
                            case .send(let path):
                                let sent = try await keeper.sendFile(at: path, to: peer, progress: transfers.upload)
                                try await event(
                                    .status([MessageKey(sender: unlocked.token, id: sent.id)], .sent, peer: peer)
                                )
                            case .help:
                                notice(ChatCommand.usage)
                            }
                        } else {
                            let sent = try await keeper.send(.text(text), to: peer)
                            try await event(
                                .status([MessageKey(sender: unlocked.token, id: sent.id)], .sent, peer: peer)
                            )
                        }
                    } catch let error as WotsError {
                        failed(error)
                    }
                }
            }
            // The first task to finish is the input ending (or the stream failing for good): stop the others.
            try await group.next()
            group.cancelAll()
        }
    }
}

/// Sends this side's typing indicators as ephemeral frames, throttled by `TypingThrottle`.
actor TypingSender {
    let keeper: ConversationKeeper
    let peer: Token
    let link: StreamLink
    private var throttle = TypingThrottle<ContinuousClock.Instant>()

    init(keeper: ConversationKeeper, peer: Token, link: StreamLink) {
        self.keeper = keeper
        self.peer = peer
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
        try? await self.keeper.sendTyping(state, to: self.peer, link: self.link)
    }
}
