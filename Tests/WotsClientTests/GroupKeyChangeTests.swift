import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// Key changes in groups: a member whose published key is not the one the group recorded is shown to every member,
/// messages are not wrapped for a key nobody here accepted, and the group learns the new key only from a `rekey`
/// update by an admin who trusted it.
@Suite struct GroupKeyChangeTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob
    static let carol = TestIdentities.carol

    static func member(_ who: TestIdentity, in summary: GroupSummary) -> GroupSummary.Member? {
        summary.members.first { $0.token == who.token }
    }

    @Test func aMemberWhoRotatedIsShownToEveryMemberUntilAnAdminRecordsTheTrustedKey() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            let rotated = try await bob.rotate()

            for (member, pinned) in [(alice, GroupSummary.Member.KeyStatus.changed), (carol, .unpinned)] {
                let shown = try #require(Self.member(Self.bob, in: try await member.showGroup("team")))
                #expect(shown.key == pinned)
                #expect(shown.keyRecorded == false)
            }
            let notRecorded = await #expect(throws: WotsError.self) { try await carol.sendGroup("hi", to: "team") }
            #expect(notRecorded?.code == .keyChanged, "carol never pinned bob: the group's record stands in")
            #expect(notRecorded?.reason.contains("not the one the group recorded") == true)
            let bobSelf = try #require(Self.member(Self.bob, in: try await bob.showGroup("team")))
            #expect(bobSelf.keyRecorded == false, "bob sees that the group still records his old key")
            let refused = await #expect(throws: WotsError.self) { try await alice.sendGroup("hi", to: "team") }
            #expect(refused?.code == .keyChanged)
            let notYetTrusted = await #expect(throws: WotsError.self) {
                try await alice.rekeyGroup("team", members: [Self.bob.nickname])
            }
            #expect(notYetTrusted?.code == .keyChanged, "nobody records a key they did not accept")

            _ = try await alice.trust(Self.bob.nickname)
            let rekeyed = try await alice.rekeyGroup("team", members: [Self.bob.nickname])
            #expect(Self.member(Self.bob, in: rekeyed)?.fingerprint == rotated.new)

            let carolEvents = try await carol.groupInbox(keep: false)
            #expect(carolEvents.map(\.line) == ["alice recorded the new key of bob"])
            let carolView = try #require(Self.member(Self.bob, in: try await carol.showGroup("team")))
            #expect(carolView.keyRecorded == true)
            _ = try await carol.sendGroup("the group vouches for it now", to: "team")
            _ = try await alice.sendGroup("welcome back", to: "team")
            #expect(
                try await bob.groupInbox(keep: false).compactMap(\.text)
                    == ["the group vouches for it now", "welcome back"]
            )
        }
    }

    @Test func aMessageFromARotatedMemberWaitsForTrustThenWarnsUntilTheGroupRecordsTheKey() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            _ = try await bob.rotate()
            _ = try await bob.sendGroup("new keys, same bob", to: "team")

            let waiting = try await carol.groupInbox(keep: false)
            #expect(waiting.map(\.kind) == [.refused])
            #expect(waiting.first?.line?.contains("wots trust bob") == true)

            _ = try await carol.trust(Self.bob.nickname)
            let shown = try #require(try await carol.groupInbox(keep: false).first { $0.kind == .message })
            #expect(shown.text == "new keys, same bob")
            #expect(shown.warnings.contains { $0.hasPrefix("bob's key is not the one the group recorded") })
            #expect(shown.warnings.contains { $0.contains("wots verify bob") })
            _ = alice
        }
    }

    @Test func aMemberRecordsItsOwnKeyButANonAdminCannotRecordAnothers() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            let rotated = try await carol.rotate()
            _ = try await bob.trust(Self.carol.nickname)
            let notAdmin = await #expect(throws: WotsError.self) {
                try await bob.rekeyGroup("team", members: [Self.carol.nickname])
            }
            #expect(notAdmin?.code == .invalidInput)
            #expect(notAdmin?.reason.contains("may record only its own key") == true)

            let own = try await carol.rekeyGroup("team", members: [])
            #expect(Self.member(Self.carol, in: own)?.fingerprint == rotated.new)
            _ = try await alice.trust(Self.carol.nickname)  // alice reads carol's update once she accepts the key
            #expect(try await alice.groupInbox(keep: false).last?.line == "carol recorded a new key")
        }
    }
}
