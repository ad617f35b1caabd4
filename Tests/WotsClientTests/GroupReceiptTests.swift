import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// Receipts in groups: each member's client confirms a group message to its sender alone (a 1:1 receipt naming
/// (sender, id)); the sender counts them per member.
@Suite struct GroupReceiptTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob
    static let carol = TestIdentities.carol
    static let dave = TestIdentities.mallory

    /// alice's group "team" with bob and carol, the create taken in by both.
    static func team(_ live: LiveRelay) async throws -> (alice: Messenger, bob: Messenger, carol: Messenger) {
        let alice = try await live.account(Self.alice)
        let bob = try await live.account(Self.bob)
        let carol = try await live.account(Self.carol)
        _ = try await alice.createGroup(named: "team", members: [Self.bob.nickname, Self.carol.nickname])
        _ = try await bob.groupInbox(keep: false)
        _ = try await carol.groupInbox(keep: false)
        return (alice, bob, carol)
    }

    /// Runs alice's inbox (which applies receipts) and returns the group statuses it reported, by member.
    /// - Parameter messages: how many messages (not receipts) the inbox is expected to show.
    static func groupStatuses(seenBy alice: Messenger, messages: Int = 0) async throws -> [Token: HistoryEntry.Status] {
        var statuses: [Token: HistoryEntry.Status] = [:]
        var shown = 0
        defer { #expect(shown == messages, "a receipt was shown as a message") }
        _ = try await alice.inbox(
            keep: false,
            show: { _ in shown += 1 },
            event: { event in
                if case .groupStatus(_, let status, let member) = event { statuses[member] = status }
            }
        )
        return statuses
    }

    static func receipts(of id: UUID, in alice: Messenger) async throws -> HistoryItem.GroupReceipts? {
        try await alice.groupHistory("team").items.first { $0.id == id }?.receipts
    }

    /// [members, delivered, read] of a message alice sent.
    static func counts(of id: UUID, in alice: Messenger) async throws -> [Int] {
        let receipts = try await Self.receipts(of: id, in: alice)
        return receipts.map { [$0.members, $0.delivered, $0.read] } ?? []
    }

    @Test func theSenderCountsDeliveredAndReadPerMemberAndNoOtherMemberHearsOfIt() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await Self.team(live)
            let sent = try await alice.sendGroup("hi team", to: "team")
            #expect(try await Self.counts(of: sent.id, in: alice) == [2, 0, 0])

            // A script fetching (no person reading): delivered only.
            _ = try await bob.groupInbox(keep: false, readReceipts: false)
            #expect(try await Self.groupStatuses(seenBy: alice) == [Self.bob.token: .delivered])
            // A person reading: delivered, then read.
            _ = try await carol.groupInbox(keep: false, readReceipts: true)
            #expect(try await Self.groupStatuses(seenBy: alice) == [Self.carol.token: .read])

            let receipts = try #require(try await Self.receipts(of: sent.id, in: alice))
            #expect((receipts.members, receipts.delivered, receipts.read) == (2, 2, 1))
            #expect(
                receipts.statuses.map { [$0.token: $0.status] }
                    == [Self.bob.token, Self.carol.token].sorted().map {
                        [$0: $0 == Self.bob.token ? HistoryEntry.Status.delivered : .read]
                    }
            )
            #expect(try await alice.groupHistory("team").items.first?.status == .delivered, "the least of the members")
            for member in [bob, carol] {
                _ = try await member.unlock()
                #expect(try await member.relay.mailbox(after: 0, limit: 10).messages.isEmpty, "a receipt went astray")
            }
        }
    }

    @Test func aMemberWithReadReceiptsOffNeverSendsRead() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, _) = try await Self.team(live)
            #expect(try bob.updateSettings(readReceipts: false).readReceipts == false)
            let sent = try await alice.sendGroup("private", to: "team")
            _ = try await bob.groupInbox(keep: false, readReceipts: true)
            #expect(try await Self.groupStatuses(seenBy: alice) == [Self.bob.token: .delivered])
            #expect(try await Self.receipts(of: sent.id, in: alice)?.read == 0)
        }
    }

    @Test func aForgedReceiptFromSomeoneTheMessageDidNotGoToChangesNothing() async throws {
        try await LiveRelay.run { live in
            let (alice, _, _) = try await Self.team(live)
            let dave = try await live.account(Self.dave)
            let sent = try await alice.sendGroup("members only", to: "team")
            _ = try await dave.send("hello alice", to: Self.alice.nickname)  // pins alice for dave
            let keeper = try ConversationKeeper(messenger: dave, unlocked: try await dave.unlock(), readReceipts: true)
            let key = MessageKey(sender: Self.alice.token, id: sent.id)
            _ = try await keeper.send(.receipt(try Receipt(status: .read, messages: [key])), to: Self.alice.token)

            #expect(try await Self.groupStatuses(seenBy: alice, messages: 1).isEmpty)
            #expect(try await Self.counts(of: sent.id, in: alice) == [2, 0, 0])
            #expect(try await alice.groupHistory("team").items.first?.status == .sent)
        }
    }

    @Test func waitingForDeliveryEndsWhenTheLastMemberConfirms() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await Self.team(live)
            let sent = try await alice.sendGroup("everyone?", to: "team")
            async let waited = alice.waitForGroupDelivery(of: sent.id, timeout: .seconds(30))
            _ = try await bob.groupInbox(keep: false)
            _ = try await carol.groupInbox(keep: false)
            let delivery = try await waited
            #expect(delivery.isComplete)
            #expect((delivery.members, delivery.delivered) == (2, 2))
        }
    }

    @Test func waitingForAMemberWhoNeverFetchesEndsWithTheCountReached() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, _) = try await Self.team(live)
            let sent = try await alice.sendGroup("anyone?", to: "team")
            _ = try await bob.groupInbox(keep: false)
            #expect(try await Self.groupStatuses(seenBy: alice) == [Self.bob.token: .delivered])
            let delivery = try await alice.waitForGroupDelivery(of: sent.id, timeout: .milliseconds(500))
            #expect(!delivery.isComplete)
            #expect((delivery.members, delivery.delivered) == (2, 1))
        }
    }
}
