import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// `wots chat --group`: the live stream (opened with `?groups=true`) brings group messages as they arrive, and typed
/// lines go to the other members.
@Suite struct GroupChatTests {
    /// The first element `matching` within `timeout`; nil when none came.
    static func first<Element: Sendable>(
        _ stream: AsyncStream<Element>,
        within timeout: Duration = .seconds(30),
        _ matching: @escaping @Sendable (Element) -> Bool
    ) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                for await element in stream where matching(element) { return element }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let found = await group.next() ?? nil
            group.cancelAll()
            return found
        }
    }

    @Test func aGroupChatShowsMessagesAsTheyArriveAndSendsTypedLines() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(TestIdentities.alice)
            let bob = try await live.account(TestIdentities.bob)
            let carol = try await live.account(TestIdentities.carol)
            _ = try await alice.createGroup(
                named: "live",
                members: [TestIdentities.bob.nickname, TestIdentities.carol.nickname]
            )
            _ = try await carol.groupInbox(keep: false)

            let (input, type) = AsyncStream.makeStream(of: ChatInput.self)
            let (events, shown) = AsyncStream.makeStream(of: GroupEvent.self)
            let (statuses, status) = AsyncStream.makeStream(of: StreamClient.Status.self)
            let (sends, sent) = AsyncStream.makeStream(of: SentGroupMessage.self)
            let chat = Task {
                try await bob.groupChat(
                    "live",
                    input: { input },
                    status: { status.yield($0) },
                    event: { shown.yield($0) },
                    sent: { sent.yield($0) },
                    failed: { Issue.record("not sent: \($0)") }
                )
            }
            #expect(await Self.first(statuses) { $0 == .connected } != nil, "bob's stream opened")

            _ = try await alice.sendGroup("live one", to: "live")
            let arrived = await Self.first(events) { $0.kind == .message }
            #expect(arrived?.text == "live one" && arrived?.from == TestIdentities.alice.nickname)

            type.yield(.line("bob here"))
            #expect(await Self.first(sends) { _ in true }?.recipients == 2)
            #expect(try await carol.groupInbox(keep: false).compactMap(\.text) == ["live one", "bob here"])

            type.finish()
            try await chat.value
            let later = try await bob.groupInbox(keep: false)
            #expect(later.compactMap(\.text) == [], "what the chat showed was acknowledged and is not shown again")
            #expect(later.map(\.kind) == [.membership], "the create taken in before the chat opened waits for inbox")
        }
    }
}
