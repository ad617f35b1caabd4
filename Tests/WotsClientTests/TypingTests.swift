import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// The first value `stream` yields within `timeout`; nil when it ends or the time runs out first.
func firstValue<Value: Sendable>(of stream: AsyncStream<Value>, within timeout: Duration) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask {
            for await value in stream { return value }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Typing indicators travel as ephemeral frames: a connected peer sees them, the relay keeps nothing.
@Suite struct TypingTests {
    @Test func typingReachesAConnectedPeerAndIsNeverStored() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("hi bob", to: TestIdentities.bob.nickname)  // pins bob as alice's contact

            let (bobConnected, connected) = AsyncStream.makeStream(of: Void.self)
            let (typings, typed) = AsyncStream.makeStream(of: MessageContent.TypingState.self)
            let listening = Task {
                try await bob.listen(
                    status: { if case .connected = $0 { connected.yield() } },
                    show: { _ in },
                    event: { event in
                        if case .typing(let peer, let state) = event, peer == TestIdentities.alice.token {
                            typed.yield(state)
                        }
                    }
                )
            }
            defer { listening.cancel() }
            #expect(await firstValue(of: bobConnected, within: .seconds(20)) != nil)

            let unlocked = try await alice.unlock()
            let keeper = try ConversationKeeper(messenger: alice, unlocked: unlocked, readReceipts: true)
            let link = StreamLink()
            let (aliceConnected, aliceUp) = AsyncStream.makeStream(of: Void.self)
            let streaming = Task {
                try await StreamClient(relay: alice.relay, logger: alice.logger).run(
                    status: { if case .connected = $0 { aliceUp.yield() } },
                    link: link,
                    handle: { _ in false }
                )
            }
            defer { streaming.cancel() }
            #expect(await firstValue(of: aliceConnected, within: .seconds(20)) != nil)

            try await keeper.sendTyping(.started, to: TestIdentities.bob.token, link: link)
            #expect(await firstValue(of: typings, within: .seconds(20)) == .started)

            listening.cancel()
            _ = try await bob.unlock()
            let stored = try await bob.relay.mailbox(after: 0, limit: 100).messages
            #expect(stored.isEmpty, "the relay kept \(stored.count) messages")
        }
    }
}

/// The relay honours the timer too: a disappearing message whose time came is never delivered.
@Suite struct RelayExpiryTests {
    @Test func aRecipientOfflineUntilAfterTheTimerGetsNothing() async throws {
        let clock = ManualClock()
        try await LiveRelay.run(clock: clock) { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("gone in two seconds", to: TestIdentities.bob.nickname, disappearAfter: 2)
            _ = try await bob.unlock()
            #expect(try await bob.relay.mailbox(after: 0, limit: 100).messages.count == 2)  // settings and text

            // Past the expiry however long the setup took in real time (the relay's calendar starts at its creation).
            // Only the settings message is left: it never disappears, so bob still learns the timer.
            clock.advance(by: .seconds(60))
            #expect(
                try await bob.relay.mailbox(after: 0, limit: 100).messages.map(\.envelope.header.expiresAtMilliseconds)
                    == [0]
            )
            var shown = 0
            _ = try await bob.inbox(keep: false, show: { _ in shown += 1 })
            #expect(shown == 0)
        }
    }
}
