import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// Groups end to end: three (then four) real clients, a real relay on loopback, real OpenSSL. `mallory` plays dave,
/// the member added later.
@Suite struct GroupMessagingTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob
    static let carol = TestIdentities.carol
    static let dave = TestIdentities.mallory

    static func texts(_ events: [GroupEvent]) -> [String] { events.compactMap(\.text) }

    @Test func threeMembersTalkThenOneIsAddedOneRemovedAndOneLeaves() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(Self.alice)
            let bob = try await live.account(Self.bob)
            let carol = try await live.account(Self.carol)
            let dave = try await live.account(Self.dave)

            let created = try await alice.createGroup(
                named: "climbing",
                members: [Self.bob.nickname, Self.carol.nickname]
            )
            #expect(created.members.map(\.token) == [Self.alice.token, Self.bob.token, Self.carol.token].sorted())
            #expect(created.admin && created.member)
            _ = try await alice.sendGroup("first", to: "climbing")
            for reader in [bob, carol] {
                let events = try await reader.groupInbox(keep: false)
                #expect(events.map(\.kind) == [.membership, .message])
                #expect(events.first?.line?.hasPrefix("alice created climbing with ") == true)
                #expect(Self.texts(events) == ["first"])
                #expect(events.last?.groupName == "climbing" && events.last?.from == Self.alice.nickname)
                #expect(events.last?.warnings == [])
            }

            _ = try await alice.addToGroup("climbing", members: [Self.dave.nickname])
            _ = try await alice.sendGroup("second", to: "climbing")
            let daveEvents = try await dave.groupInbox(keep: false)
            #expect(daveEvents.first?.line == "alice added you")
            #expect(Self.texts(daveEvents) == ["second"], "dave reads what came after he joined, not before")

            _ = try await alice.removeFromGroup("climbing", members: [Self.carol.nickname])
            _ = try await alice.sendGroup("third", to: "climbing")
            let carolEvents = try await carol.groupInbox(keep: false)
            #expect(Self.texts(carolEvents) == ["second"], "carol never gets a slot after her removal")
            #expect(carolEvents.last?.line == "you were removed from climbing by alice")
            await #expect(throws: WotsError.self) { try await carol.sendGroup("still here?", to: "climbing") }

            let left = try await bob.leaveGroup("climbing")
            #expect(!left.member && left.members.map(\.token) == [Self.alice.token, Self.dave.token].sorted())
            _ = try await alice.sendGroup("fourth", to: "climbing")
            let bobEvents = try await bob.groupInbox(keep: false)
            #expect(Self.texts(bobEvents) == ["second", "third"])
            #expect(bobEvents.last?.line == "you left climbing")

            let laterDave = try await dave.groupInbox(keep: false)
            #expect(Self.texts(laterDave) == ["third", "fourth"])
            #expect(laterDave.compactMap(\.line).contains("alice removed carol"))
            #expect(laterDave.compactMap(\.line).contains("bob left"))

            let (_, items) = try await dave.groupHistory("climbing")
            #expect(items.map(\.text) == ["second", "third", "fourth"])
        }
    }

    @Test func anUpdateByANonAdminIsIgnoredAndReported() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(Self.alice)
            let bob = try await live.account(Self.bob)
            let carol = try await live.account(Self.carol)
            _ = try await live.account(Self.dave)
            _ = try await alice.createGroup(named: "book club", members: [Self.bob.nickname, Self.carol.nickname])
            _ = try await carol.groupInbox(keep: false)

            // bob's own client refuses to build it; a modified client sends it anyway.
            await #expect(throws: WotsError.self) {
                try await bob.addToGroup("book club", members: [Self.dave.nickname])
            }
            let unlocked = try await bob.unlock()
            let chain = try bob.store.groupBook().resolve("book club")
            let current = chain.current
            let forged = GroupState(
                id: current.id,
                version: current.version + 1,
                previous: chain.currentHash,
                name: current.name,
                members: current.members + [
                    GroupMember(token: Self.dave.token, fingerprint: Self.dave.fingerprint, joinedAt: 2)
                ]
            )
            _ = try await bob.postGroup(
                .groupUpdate(GroupUpdate(action: .add, state: forged)),
                naming: current,
                to: current.tokens + [Self.dave.token],
                as: unlocked
            )
            for reader in [alice, carol] {
                let events = try await reader.groupInbox(keep: false)
                let refusal = try #require(events.last)
                #expect(refusal.kind == .refused)
                #expect(refusal.line?.contains("is not an admin") == true)
                #expect(try reader.store.groupBook().resolve("book club").current.version == 1, "not applied")
            }
        }
    }

    @Test func aWithheldSlotShowsAsAGapOnlyToItsMember() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(Self.alice)
            let bob = try await live.account(Self.bob)
            let carol = try await live.account(Self.carol)
            _ = try await alice.createGroup(named: "ops", members: [Self.bob.nickname, Self.carol.nickname])
            _ = try await bob.groupInbox(keep: false)
            _ = try await carol.groupInbox(keep: false)

            let one = try await alice.sendGroup("one", to: "ops")
            let groups = try #require(live.relay.storage.mailboxes as? any GroupMailboxRepository)
            let dropped = try await groups.acknowledgeGroup(
                [MessageKey(sender: Self.alice.token, id: one.id)],
                for: Self.bob.token,
                at: Date()
            )
            #expect(dropped.count == 1, "the relay withheld bob's slot")
            _ = try await alice.sendGroup("two", to: "ops")

            let bobEvents = try await bob.groupInbox(keep: false)
            #expect(Self.texts(bobEvents) == ["two"])
            #expect(bobEvents.last?.warnings == ["missed 1 message from alice"])
            let carolEvents = try await carol.groupInbox(keep: false)
            #expect(Self.texts(carolEvents) == ["one", "two"])
            #expect(carolEvents.allSatisfy { $0.warnings.isEmpty }, "carol sees the full signed recipient list")
        }
    }

    @Test func aReplayedUpdateAndARemovedMembersMessageAreRefused() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(Self.alice)
            let bob = try await live.account(Self.bob)
            let carol = try await live.account(Self.carol)
            _ = try await live.account(Self.dave)
            _ = try await alice.createGroup(named: "band", members: [Self.bob.nickname, Self.carol.nickname])
            _ = try await alice.addToGroup("band", members: [Self.dave.nickname])
            _ = try await bob.groupInbox(keep: false)

            let unlocked = try await alice.unlock()
            let chain = try alice.store.groupBook().resolve("band")
            let parent = try #require(chain.held[chain.current.previous])
            _ = try await alice.postGroup(
                .groupUpdate(GroupUpdate(action: .add, state: chain.current)),
                naming: parent,
                to: chain.current.tokens,
                as: unlocked
            )
            let replay = try await bob.groupInbox(keep: false)
            #expect(replay.map(\.kind) == [.refused])
            #expect(replay.first?.line?.contains("was applied already") == true)

            _ = try await alice.removeFromGroup("band", members: [Self.carol.nickname])
            _ = try await carol.groupInbox(keep: false)
            let carolChain = try carol.store.groupBook().resolve("band")
            #expect(!carolChain.isMember)
            let whenMember = try #require(carolChain.held[carolChain.current.previous])
            _ = try await carol.postGroup(
                .text("I am still here"),
                naming: whenMember,
                to: [Self.alice.token, Self.bob.token],
                as: try await carol.unlock()
            )
            let afterRemoval = try await bob.groupInbox(keep: false)
            #expect(Self.texts(afterRemoval) == [])
            #expect(afterRemoval.last?.kind == .refused)
            #expect(afterRemoval.last?.line?.contains("is not a member") == true)
        }
    }

    @Test func aMemberWithAChangedKeyIsRefusedForWrappingUntilTrusted() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(Self.alice)
            let bob = try await live.account(Self.bob)
            _ = try await live.account(Self.carol)
            _ = try await alice.createGroup(named: "family", members: [Self.bob.nickname, Self.carol.nickname])

            // What alice pinned for bob is no longer what the directory publishes.
            let book = try alice.store.contactBook()
            try alice.store.save(
                ContactBook(
                    contacts: book.contacts.filter { $0.token != Self.bob.token } + [
                        Contact(
                            token: Self.bob.token,
                            nickname: Self.bob.nickname,
                            publicKeys: Self.carol.publicKeys,
                            fingerprint: Self.carol.fingerprint,
                            pinnedAt: Date()
                        )
                    ]
                )
            )
            let refused = await #expect(throws: WotsError.self) { try await alice.sendGroup("hi", to: "family") }
            #expect(refused?.code == .keyChanged)
            #expect(refused?.reason.contains("wots trust bob") == true)
            let shown = try await alice.showGroup("family")
            #expect(shown.members.first { $0.token == Self.bob.token }?.key == .changed)
            #expect(shown.members.first { $0.token == Self.carol.token }?.key == .pinned)

            _ = try await alice.trust(Self.bob.nickname)
            _ = try await alice.sendGroup("hi", to: "family")
            #expect(Self.texts(try await bob.groupInbox(keep: false)) == ["hi"])
        }
    }

    @Test func twoGroupsWithOneNameAreRefusedByNameAndFoundByIDPrefix() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(Self.alice)
            _ = try await live.account(Self.bob)
            let first = try await alice.createGroup(named: "team", members: [Self.bob.nickname])
            _ = try await alice.createGroup(named: "team", members: [Self.bob.nickname])
            let ambiguous = await #expect(throws: WotsError.self) { try await alice.sendGroup("x", to: "team") }
            #expect(ambiguous?.code == .invalidInput)
            #expect(ambiguous?.reason.contains(String(first.id.description.prefix(8))) == true)
            let sent = try await alice.sendGroup("x", to: String(first.id.description.prefix(12)))
            #expect(sent.group == first.id)
        }
    }
}
