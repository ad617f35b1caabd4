import Foundation
import Synchronization
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// Typing in groups: one ephemeral group envelope per indicator, passed on to the members' open group streams and
/// never stored; a member shows it only as typing, only from a current member.
@Suite struct GroupTypingTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob
    static let carol = TestIdentities.carol

    /// bob's group chat in "team", until `input` ends: its typing lines and its group events.
    struct Watcher {
        let activities: AsyncStream<ConversationEvent>
        let events: EventLog
        let chat: Task<Void, any Error>
    }

    /// The group events a chat showed.
    final class EventLog: Sendable {
        let events = Mutex<[GroupEvent]>([])

        func append(_ event: GroupEvent) { self.events.withLock { $0.append(event) } }

        var messages: [GroupEvent] { self.events.withLock { $0.filter { $0.kind == .message } } }
    }

    static func watch(_ bob: Messenger, input: AsyncStream<ChatInput>) async -> Watcher? {
        let (activities, activity) = AsyncStream.makeStream(of: ConversationEvent.self)
        let (statuses, status) = AsyncStream.makeStream(of: StreamClient.Status.self)
        let events = EventLog()
        let watcher = Watcher(
            activities: activities,
            events: events,
            chat: Task {
                try await bob.groupChat(
                    "team",
                    input: { input },
                    status: { status.yield($0) },
                    event: { events.append($0) },
                    activity: { activity.yield($0) },
                    failed: { Issue.record("not sent: \($0)") }
                )
            }
        )
        return await GroupChatTests.first(statuses) { $0 == .connected } == nil ? nil : watcher
    }

    /// A stream for `user` with a link to send ephemeral frames on, connected.
    static func link(for user: Messenger) async throws -> (StreamLink, Task<Void, any Error>) {
        let link = StreamLink()
        let (statuses, status) = AsyncStream.makeStream(of: StreamClient.Status.self)
        let running = Task {
            try await StreamClient(relay: user.relay, logger: user.logger).run(
                status: { status.yield($0) },
                link: link,
                handle: { _ in false }
            )
        }
        #expect(await GroupChatTests.first(statuses) { $0 == .connected } != nil)
        return (link, running)
    }

    /// An ephemeral group message with `content` from `sender`, naming `state`, for `recipients`.
    static func ephemeral(
        _ content: MessageContent,
        from sender: TestIdentity,
        naming state: GroupState,
        to recipients: [TestIdentity]
    ) throws -> GroupSendRequest {
        let sealed = try GroupEnvelope.seal(
            plaintext: try MessageBody(content).encoded(),
            from: sender.token,
            identity: sender.identity,
            groupID: state.id,
            membershipVersion: state.version,
            membershipStateHash: state.stateHash,
            senderSequence: 1,
            to: recipients.map { GroupRecipientKeys(token: $0.token, publicKeys: $0.publicKeys) }
        )
        return GroupSendRequest(body: sealed.envelope, slots: sealed.slots)
    }

    static func typingPeer(_ event: ConversationEvent) -> Token? {
        if case .typing(let peer, .started) = event { return peer }
        return nil
    }

    @Test func typingInAGroupChatReachesAConnectedMemberAndTheRelayStoresNothing() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, _) = try await GroupReceiptTests.team(live)
            let (bobInput, bobTyping) = AsyncStream.makeStream(of: ChatInput.self)
            let watcher = try #require(await Self.watch(bob, input: bobInput), "bob's chat connected")
            let (aliceInput, aliceTyping) = AsyncStream.makeStream(of: ChatInput.self)
            let (aliceStatuses, aliceStatus) = AsyncStream.makeStream(of: StreamClient.Status.self)
            let aliceChat = Task {
                try await alice.groupChat(
                    "team",
                    input: { aliceInput },
                    status: { aliceStatus.yield($0) },
                    event: { _ in },
                    failed: { Issue.record("not sent: \($0)") }
                )
            }
            #expect(await GroupChatTests.first(aliceStatuses) { $0 == .connected } != nil)

            aliceTyping.yield(.keystroke)
            let typing = await GroupChatTests.first(watcher.activities) { Self.typingPeer($0) != nil }
            #expect(typing.flatMap(Self.typingPeer) == Self.alice.token)

            let groups = try #require(live.relay.storage.mailboxes as? any GroupMailboxRepository)
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
            _ = try await bob.unlock()
            #expect(try await bob.relay.groupMailbox(after: 0, limit: 10).messages.isEmpty)
            #expect(try await bob.relay.mailbox(after: 0, limit: 10).messages.isEmpty)
            aliceTyping.finish()
            bobTyping.finish()
            try await aliceChat.value
            try await watcher.chat.value
        }
    }

    @Test func anEphemeralTextAndTypingFromARemovedMemberAreNeitherShownNorKept() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            let created = try alice.store.groupBook().resolve("team").current
            _ = try await alice.removeFromGroup("team", members: [Self.carol.nickname])
            let (bobInput, bobTyping) = AsyncStream.makeStream(of: ChatInput.self)
            let watcher = try #require(await Self.watch(bob, input: bobInput), "bob's chat connected")
            let current = try alice.store.groupBook().resolve("team").current

            let (carolLink, carolStream) = try await Self.link(for: carol)
            #expect(
                try await carolLink.sendEphemeral(
                    try Self.ephemeral(
                        .typing(.started),
                        from: Self.carol,
                        naming: created,
                        to: [Self.alice, Self.bob]
                    )
                )
            )
            let (aliceLink, aliceStream) = try await Self.link(for: alice)
            #expect(
                try await aliceLink.sendEphemeral(
                    try Self.ephemeral(.text("not live text"), from: Self.alice, naming: current, to: [Self.bob])
                )
            )
            #expect(
                try await aliceLink.sendEphemeral(
                    try Self.ephemeral(.typing(.started), from: Self.alice, naming: current, to: [Self.bob])
                )
            )
            // Frames reach bob in order: when alice's typing shows, carol's and the text were handled before it.
            let typing = await GroupChatTests.first(watcher.activities) { Self.typingPeer($0) != nil }
            #expect(typing.flatMap(Self.typingPeer) == Self.alice.token, "carol's typing was shown first")
            #expect(watcher.events.messages.isEmpty)
            let history = try await bob.groupHistory("team").items
            #expect(history.isEmpty, "an ephemeral text was kept")
            carolStream.cancel()
            aliceStream.cancel()
            bobTyping.finish()
            try await watcher.chat.value
        }
    }
}
