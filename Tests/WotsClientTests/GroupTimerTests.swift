import Foundation
import Synchronization
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// Disappearing timers in groups: any member sets one for everyone (a `settings` group message that never
/// disappears itself), every member converges on the latest change, and messages then carry it to the relay.
@Suite struct GroupTimerTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob
    static let carol = TestIdentities.carol

    @Test func aTimerSetByAnyMemberReachesEveryMemberAndLaterMessagesCarryIt() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            _ = try await bob.setGroupTimer("team", seconds: 3_600)
            for member in [alice, carol] {
                // alice's own create came back to her too.
                let events = try await member.groupInbox(keep: false)
                #expect(events.last?.line == "bob set disappearing messages to 1 hour")
                #expect(events.last?.kind == .membership)
                #expect(try await member.groupTimer("team") == 3_600)
            }
            #expect(try await bob.groupTimer("team") == 3_600)

            let sent = try await alice.sendGroup("gone in an hour", to: "team")
            let groups = try #require(live.relay.storage.mailboxes as? any GroupMailboxRepository)
            let stored = try #require(
                try await groups.groupMessages(for: Self.carol.token, after: 0, limit: 10, at: Date()).last
            )
            let header = stored.envelope.header
            #expect(header.messageID == sent.id)
            #expect(Array(sent.id.uuidString)[14] == "7", "a version 7 message id (SECURITY.md, \"Sealing\")")
            #expect(header.expiresAtMilliseconds == header.sentAtMilliseconds + 3_600_000, "the relay sees the timer")
            let shown = try #require(try await carol.groupInbox(keep: false).first)
            #expect(shown.text == "gone in an hour")
            let shownExpiry = try #require(shown.expiresAt)
            #expect(abs(shownExpiry.timeIntervalSince(try #require(header.expiresAt))) < 0.001)
            let kept = try await alice.groupHistory("team").items.first { $0.id == sent.id }
            #expect(kept?.expiresAt == header.expiresAt)
        }
    }

    @Test func crossedTimerChangesConvergeOnTheLatestForEveryMember() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            // Both change it before either took in the other's change: their messages cross at the relay.
            let state = try alice.store.groupBook().resolve("team").current
            _ = try await alice.post(.settings(disappearAfter: 60), in: state, as: try await alice.unlock())
            _ = try await bob.post(.settings(disappearAfter: 300), in: state, as: try await bob.unlock())
            #expect(try await alice.groupTimer("team") == 60)
            #expect(try await bob.groupTimer("team") == 300)
            for member in [alice, bob, carol] { _ = try await member.groupInbox(keep: false) }
            let timers = [
                try await alice.groupTimer("team"), try await bob.groupTimer("team"),
                try await carol.groupTimer("team"),
            ]
            #expect(Set(timers).count == 1, "members disagree: \(timers)")
            #expect(timers.first == 300 || timers.first == 60)
        }
    }

    @Test func aTimerChangeFromARemovedMemberIsRefusedAndChangesNothing() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            let created = try carol.store.groupBook().resolve("team").current
            _ = try await alice.removeFromGroup("team", members: [Self.carol.nickname])
            _ = try await bob.groupInbox(keep: false)
            // carol's client would refuse to send; a modified one names the state in which she was a member.
            _ = try await carol.postGroup(
                .settings(disappearAfter: 5),
                naming: created,
                to: [Self.alice.token, Self.bob.token],
                disappearAfter: 5,
                as: try await carol.unlock()
            )
            let events = try await bob.groupInbox(keep: false)
            #expect(events.map(\.kind) == [.refused])
            #expect(events.first?.line?.contains("is not a member") == true)
            #expect(try await bob.groupTimer("team") == 0)
        }
    }

    @Test func aDisappearingGroupMessageIsDeletedFromTheHistoryWhenItsTimeComes() async throws {
        try await LiveRelay.run { live in
            let later = Mutex<TimeInterval>(0)
            let alice = try await live.account(Self.alice)
            let bob = try await live.account(Self.bob, now: { Date().addingTimeInterval(later.withLock { $0 }) })
            _ = try await alice.createGroup(named: "team", members: [Self.bob.nickname])
            _ = try await alice.sendGroup("one minute", to: "team", disappearAfter: 60)
            let events = try await bob.groupInbox(keep: false)
            #expect(events.compactMap(\.text) == ["one minute"])
            #expect(try await bob.groupHistory("team").items.map(\.text) == ["one minute"])

            later.withLock { $0 = 120 }
            #expect(try await bob.groupHistory("team").items.isEmpty, "the message outlived its timer")
            #expect(try await bob.groupTimer("team") == 60, "the timer itself never disappears")
        }
    }
}
