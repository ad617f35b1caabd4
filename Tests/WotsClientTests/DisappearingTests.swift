import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// Disappearing messages and the encrypted history, between two real clients through a real relay on loopback.
@Suite struct DisappearingTests {
    let aliceUser = TestIdentities.alice
    let bobUser = TestIdentities.bob

    @Test func aTwoSecondTimerRemovesTheMessageFromBothHistoriesOnTime() async throws {
        // The relay's clock and bob's stand still, so however slow this machine is, the message reaches him before
        // its time; the test then names the times itself.
        try await LiveRelay.run(clock: ManualClock()) { relay in
            let start = Date()
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser, now: { start })
            let sent = try await alice.send("burn after reading", to: bobUser.nickname, disappearAfter: 2)
            #expect(Array(sent.id.uuidString)[14] == "7", "a version 7 message id (SECURITY.md, \"Sealing\")")
            var timers: [UInt32] = []
            var received: [ReceivedMessage] = []
            _ = try await bob.inbox(
                keep: false,
                show: { received.append($0) },
                event: { event in
                    if case .timer(let seconds, _, _) = event { timers.append(seconds) }
                }
            )
            #expect(timers == [2])
            let message = try #require(received.first)
            #expect(message.text == "burn after reading")
            let expiresAt = try #require(message.expiresAt)
            #expect(abs(expiresAt.timeIntervalSince(message.sentAt) - 2) < 0.001)

            let bobKeeper = try ConversationKeeper(messenger: bob, unlocked: try await bob.unlock(), readReceipts: true)
            #expect(try bobKeeper.history.disappearAfter(with: aliceUser.token) == 2)
            #expect(try await bobKeeper.removeExpired(now: expiresAt.addingTimeInterval(-0.01)) == 0)
            #expect(try await bobKeeper.removeExpired(now: expiresAt) == 1)
            #expect(try bobKeeper.history.entries(with: aliceUser.token).isEmpty)

            let aliceKeeper = try ConversationKeeper(
                messenger: alice,
                unlocked: try await alice.unlock(),
                readReceipts: true
            )
            #expect(try aliceKeeper.history.entry(MessageKey(sender: aliceUser.token, id: sent.id)) != nil)
            #expect(try await aliceKeeper.removeExpired(now: expiresAt) == 1)
            #expect(try aliceKeeper.history.entries(with: bobUser.token).isEmpty)
            #expect(try alice.store.outbox().envelope(id: sent.id) == nil)
        }
    }

    @Test func aMessageWhoseTimeCameWhileTheRecipientWasOfflineIsNeverKept() async throws {
        // The relay's clock stands still so it still hands the message over; bob's client judges it by its own time.
        try await LiveRelay.run(clock: ManualClock()) { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            _ = try await alice.send("gone soon", to: bobUser.nickname, disappearAfter: 2)
            let unlocked = try await bob.unlock()
            let keeper = try ConversationKeeper(messenger: bob, unlocked: unlocked, readReceipts: true)
            let state = try bob.listenerState(for: unlocked)
            var kept = 0
            let mailbox = try await bob.relay.mailbox(after: 0, limit: 10).messages
            #expect(mailbox.count == 2)  // settings and text
            for delivered in mailbox {
                let message = try #require(try await state.open(delivered))
                let later = message.sentAt.addingTimeInterval(3)
                switch try await keeper.receive(message, now: later) {
                case .expired(let count): #expect(count == 1)
                case .timer(let seconds, _, _): #expect(seconds == 2)
                default: kept += 1
                }
            }
            #expect(kept == 0)
            #expect(try keeper.history.entries(with: aliceUser.token).isEmpty)
        }
    }

    @Test func aTimerSetWhileThePeerWasOfflineLongerThanItStillReachesThem() async throws {
        // The settings message never disappears itself: had it expired with its own two seconds, bob would keep
        // sending with no timer into a conversation alice made disappearing.
        let clock = ManualClock()
        try await LiveRelay.run(clock: clock) { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser, now: { Date().addingTimeInterval(10) })
            _ = try await alice.send("gone soon", to: bobUser.nickname, disappearAfter: 2)
            clock.advance(by: .seconds(10))
            var timers: [UInt32] = []
            var texts: [String?] = []
            _ = try await bob.inbox(
                keep: false,
                show: { texts.append($0.text) },
                event: { event in
                    if case .timer(let seconds, _, _) = event { timers.append(seconds) }
                }
            )
            #expect(timers == [2])
            #expect(texts.isEmpty)
            let keeper = try ConversationKeeper(messenger: bob, unlocked: try await bob.unlock(), readReceipts: true)
            #expect(try keeper.history.disappearAfter(with: aliceUser.token) == 2)
        }
    }

    @Test func timerChangesThatCrossOnTheWayLeaveBothSidesWithTheSameTimer() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            _ = try await alice.send("five seconds, please", to: bobUser.nickname, disappearAfter: 5)
            _ = try await bob.send("no, a minute", to: aliceUser.nickname, disappearAfter: 60)
            _ = try await alice.inbox(keep: false, show: { _ in })
            _ = try await bob.inbox(keep: false, show: { _ in })
            let aliceHistory = try alice.openHistory(try await alice.unlock())
            let bobHistory = try bob.openHistory(try await bob.unlock())
            let aliceTimer = try aliceHistory.disappearAfter(with: bobUser.token)
            #expect(aliceTimer == (try bobHistory.disappearAfter(with: aliceUser.token)))
            #expect([5, 60].contains(aliceTimer))
        }
    }

    @Test func historyIsEncryptedOnDiskAndShownAfterUnlocking() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            _ = try await alice.send("the key is under the mat", to: bobUser.nickname)
            _ = try await bob.inbox(keep: false, show: { _ in })
            _ = try await bob.send("thanks, found it", to: aliceUser.nickname)

            let file = bob.store.home.appendingPathComponent(ConversationHistory.fileName)
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("under the mat".utf8)) == nil)
            #expect(bytes.range(of: Data("found it".utf8)) == nil)
            #expect(try mode(of: file) == 0o600)

            let (items, expired) = try await bob.history(with: aliceUser.nickname)
            #expect(expired == 0)
            #expect(items.map(\.text) == ["the key is under the mat", "thanks, found it"])
            #expect(items.map(\.isOutgoing) == [false, true])
            #expect(try await bob.history(with: aliceUser.nickname, search: "MAT").items.count == 1)

            let wrong = try relay.messenger(home: bob.store.home, secret: "not bob's secret at all, sorry")
            await #expect(throws: WotsError(.wrongSecret, "")) {
                _ = try await wrong.history(with: aliceUser.nickname)
            }
        }
    }
}

/// The avatar preset a new contact sends with its first message.
@Suite struct ProfileTests {
    @Test func theFirstMessageToANewContactCarriesTheSendersAvatarPreset() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice, avatar: .preset(.tiger))
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("hi, it's alice", to: TestIdentities.bob.nickname)
            _ = try await alice.send("again", to: TestIdentities.bob.nickname)
            var profiles: [PeerAvatar] = []
            var texts: [String?] = []
            _ = try await bob.inbox(
                keep: false,
                show: { texts.append($0.text) },
                event: { event in
                    if case .profile(_, let avatar) = event { profiles.append(avatar) }
                }
            )
            #expect(texts == ["hi, it's alice", "again"])
            #expect(profiles == [.preset(.tiger)])
            let history = try bob.openHistory(try await bob.unlock())
            #expect(try history.avatar(of: TestIdentities.alice.token) == .preset(.tiger))
            #expect(try bob.store.peerAvatar(of: TestIdentities.alice.token) == .preset(.tiger))
        }
    }
}
