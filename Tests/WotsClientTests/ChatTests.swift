import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// What a chat showed, kept so a test can wait for the first event of a kind, whenever it came.
actor EventLog {
    private var events: [ConversationEvent] = []
    private var waiters:
        [UUID: (matches: @Sendable (ConversationEvent) -> Bool, resume: CheckedContinuation<ConversationEvent?, Never>)] =
            [:]

    func append(_ event: ConversationEvent) {
        self.events.append(event)
        for (id, waiter) in self.waiters where waiter.matches(event) {
            self.waiters[id] = nil
            waiter.resume.resume(returning: event)
        }
    }

    /// The first event `matching` (shown before or within `timeout`); nil when none came in time.
    func first(within timeout: Duration, _ matching: @escaping @Sendable (ConversationEvent) -> Bool) async
        -> ConversationEvent?
    {
        if let event = self.events.first(where: matching) { return event }
        let id = UUID()
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { self.waiters[id] = (matching, $0) }
    }

    private func expire(_ id: UUID) {
        self.waiters.removeValue(forKey: id)?.resume.resume(returning: nil)
    }
}

/// A running `Messenger.chat`: the lines typed into it, and what it showed.
struct RunningChat {
    let type: AsyncStream<ChatInput>.Continuation
    let log = EventLog()
    let notices: AsyncStream<String>
    let task: Task<Void, any Error>

    init(_ messenger: Messenger, with peer: Nickname, downloads: AttachmentSaver? = nil) {
        let (input, type) = AsyncStream.makeStream(of: ChatInput.self)
        let (notices, notice) = AsyncStream.makeStream(of: String.self)
        let log = self.log
        self.type = type
        self.notices = notices
        self.task = Task {
            try await messenger.chat(
                with: peer,
                downloads: downloads,
                input: { input },
                status: { _ in },
                event: { await log.append($0) },
                failed: { Issue.record("not sent: \($0)") },
                notice: { notice.yield($0) }
            )
        }
    }

    /// The first event `matching`, within 30 s; nil when none came.
    func next<Value: Sendable>(_ matching: @escaping @Sendable (ConversationEvent) -> Value?) async -> Value? {
        await self.log.first(within: .seconds(30)) { matching($0) != nil }.flatMap(matching)
    }

    func end() async throws {
        self.type.finish()
        try await self.task.value
    }
}

/// `wots chat`'s commands: `/send PATH` sends a file like `wots send --file`, a received attachment is saved.
@Suite struct ChatTests {
    @Test func slashCommandsAreParsedAndOtherLinesAreMessages() throws {
        #expect(try ChatCommand("/send /tmp/a file.txt") == .send(path: "/tmp/a file.txt"))
        #expect(try ChatCommand("/help") == .help)
        #expect(try ChatCommand("/disappear off") == .disappear(0))
        #expect(try ChatCommand("hello /send") == nil)
        #expect(throws: WotsError(.invalidInput, "")) { try ChatCommand("/send   ") }
        #expect(ChatCommand.usage.contains("/send PATH"))
    }

    @Test func aFileSentWithSlashSendIsSavedOnTheOtherSideAndGetsItsMarks() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let downloads = relay.folder.url.appendingPathComponent("bob-downloads")
            let file = relay.folder.url.appendingPathComponent("notes from alice.txt")
            let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try bytes.write(to: file)

            let aliceChat = RunningChat(alice, with: TestIdentities.bob.nickname)
            let bobChat = RunningChat(
                bob,
                with: TestIdentities.alice.nickname,
                downloads: AttachmentSaver(folder: downloads)
            )
            aliceChat.type.yield(.line("/help"))
            #expect(await firstValue(of: aliceChat.notices, within: .seconds(30))?.contains("/send PATH") == true)

            aliceChat.type.yield(.line("/send \(file.path)"))
            let sent = await aliceChat.next { event -> MessageKey? in
                if case .status(let keys, .sent, _) = event { return keys.first }
                return nil
            }
            let received = await bobChat.next { event -> ReceivedMessage? in
                if case .message(let message) = event { return message }
                return nil
            }
            let message = try #require(received)
            #expect(message.isValid, "\(message.problem?.message ?? "")")
            #expect(message.attachment?.name == "notes from alice.txt")
            let saved = try #require(message.savedTo)
            #expect(saved == downloads.appendingPathComponent("notes from alice.txt").path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: saved)) == bytes)
            #expect(message.key == sent)

            let confirmed = await aliceChat.next { event -> MessageKey? in
                if case .status(let keys, .read, _) = event { return keys.first }
                return nil
            }
            #expect(confirmed == sent)
            try await aliceChat.end()
            try await bobChat.end()
        }
    }
}
