import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// `wots listen` shows every group's messages and membership changes as they arrive, beside 1:1 messages.
@Suite struct GroupListenTests {
    @Test func listenShowsGroupEventsOfEveryGroupLiveAndInboxDoesNotShowThemAgain() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(TestIdentities.alice)
            let bob = try await live.account(TestIdentities.bob)
            _ = try await live.account(TestIdentities.carol)

            let (statuses, status) = AsyncStream.makeStream(of: StreamClient.Status.self)
            let (events, shown) = AsyncStream.makeStream(of: GroupEvent.self)
            let (messages, received) = AsyncStream.makeStream(of: ReceivedMessage.self)
            let listening = Task {
                try await bob.listen(
                    status: { status.yield($0) },
                    show: { received.yield($0) },
                    group: { shown.yield($0) }
                )
            }
            #expect(await GroupChatTests.first(statuses) { $0 == .connected } != nil, "bob's stream opened")

            _ = try await alice.createGroup(named: "first", members: [TestIdentities.bob.nickname])
            _ = try await alice.createGroup(
                named: "second",
                members: [TestIdentities.bob.nickname, TestIdentities.carol.nickname]
            )
            let created = await GroupChatTests.first(events) { $0.kind == .membership && $0.groupName == "second" }
            #expect(created != nil, "a membership change of the second group arrives live")
            _ = try await alice.sendGroup("to the first", to: "first")
            let arrived = await GroupChatTests.first(events) { $0.kind == .message }
            #expect(arrived?.text == "to the first" && arrived?.groupName == "first")
            _ = try await alice.send("one to one", to: TestIdentities.bob.nickname)
            #expect(await GroupChatTests.first(messages) { _ in true }?.text == "one to one", "1:1 still arrives")

            listening.cancel()
            _ = try? await listening.value
            #expect(try await bob.groupInbox(keep: false).compactMap(\.text).isEmpty, "shown live, not again")
        }
    }
}
