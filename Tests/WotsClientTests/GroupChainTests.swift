import Foundation
import Testing
import WotsClient
import WotsCore
import WotsCrypto
import WotsTesting

/// The membership chain as a member's client applies it: who may change a group, and which messages it shows.
@Suite struct GroupChainTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol
    let mallory = TestIdentities.mallory
    let id = try! GroupID(hex: "0f0e0d0c0b0a09080706050403020100")

    func member(_ who: TestIdentity, admin: Bool = false, joinedAt: UInt64 = 1) -> GroupMember {
        GroupMember(token: who.token, fingerprint: who.fingerprint, isAdmin: admin, joinedAt: joinedAt)
    }

    /// Version 1: alice (admin), bob and carol.
    var created: GroupState {
        GroupState(
            id: id,
            version: 1,
            previous: GroupState.noPreviousState,
            name: "climbing",
            members: [member(alice, admin: true), member(bob), member(carol)]
        )
    }

    /// The state after `state` with `change` applied, chained to it.
    func next(_ state: GroupState, _ change: (inout GroupState) -> Void) -> GroupState {
        var next = state
        next.version += 1
        next.previous = state.stateHash
        change(&next)
        next.members.sort { $0.token < $1.token }
        return next
    }

    func chain(as owner: TestIdentity) throws -> GroupChain {
        try GroupChain(joining: GroupUpdate(action: .create, state: created), from: alice.token, as: owner.token)
    }

    func header(
        from sender: TestIdentity,
        state: GroupState,
        to recipients: [TestIdentity],
        sequence: UInt64 = 1
    ) throws -> GroupEnvelopeHeader {
        GroupEnvelopeHeader(
            messageID: UUID(),
            sender: sender.token,
            senderFingerprint: sender.fingerprint,
            groupID: state.id,
            membershipVersion: state.version,
            membershipStateHash: state.stateHash,
            senderSequence: sequence,
            sentAtMilliseconds: 1_767_225_600_000,
            expiresAtMilliseconds: 0,
            keyCommitment: [UInt8](repeating: 0, count: 32),
            recipients: recipients.sorted { $0.token < $1.token }.map {
                GroupRecipient(token: $0.token, fingerprint: $0.fingerprint, slotHash: [UInt8](repeating: 1, count: 32))
            }
        )
    }

    /// The kind of refusal `body` throws; nil when it throws nothing (any other error is a test failure).
    func refusal(_ body: () throws -> Void) -> GroupRefusal.Kind? {
        do {
            try body()
            return nil
        } catch let refusal as GroupRefusal {
            return refusal.kind
        } catch {
            Issue.record("expected a GroupRefusal, got \(error)")
            return nil
        }
    }

    @Test func membersNamedInACreateJoinAndAnOutsiderCannotBeAddedByANonAdmin() throws {
        var bobs = try chain(as: bob)
        #expect(bobs.current == created)
        #expect(bobs.isMember)
        let addedByCarol = next(created) { $0.members.append(member(mallory, joinedAt: 2)) }
        #expect(
            refusal { try bobs.apply(GroupUpdate(action: .add, state: addedByCarol), from: carol.token) } == .notAdmin
        )
        #expect(bobs.current == created)
        #expect(throws: GroupRefusal.self) {
            try GroupChain(
                joining: GroupUpdate(action: .add, state: addedByCarol),
                from: carol.token,
                as: mallory.token
            )
        }
        try bobs.apply(GroupUpdate(action: .add, state: addedByCarol), from: alice.token)
        #expect(bobs.current == addedByCarol)
    }

    @Test func anAdminAddsAMemberWhoJoinsFromThatUpdate() throws {
        var bobs = try chain(as: bob)
        let added = next(created) { $0.members.append(member(mallory, joinedAt: 2)) }
        try bobs.apply(GroupUpdate(action: .add, state: added), from: alice.token)
        #expect(bobs.current.tokens.contains(mallory.token))
        let mallorys = try GroupChain(
            joining: GroupUpdate(action: .add, state: added),
            from: alice.token,
            as: mallory.token
        )
        #expect(mallorys.current == added)
        // Mallory never held version 1: a message naming it is refused for her, shown to bob.
        var mallorysCopy = mallorys
        let old = try header(from: carol, state: created, to: [alice, bob])
        #expect(refusal { _ = try mallorysCopy.admit(old) } == .unknownState)
        #expect(try bobs.admit(old).isEmpty)
    }

    @Test func aReplayedOldUpdateIsRefusedByTheChain() throws {
        var bobs = try chain(as: bob)
        let renamed = next(created) { $0.name = "bouldering" }
        let update = GroupUpdate(action: .rename, state: renamed)
        try bobs.apply(update, from: alice.token)
        #expect(refusal { try bobs.apply(update, from: alice.token) } == .replayed)
        #expect(
            refusal { try bobs.apply(GroupUpdate(action: .create, state: created), from: alice.token) } == .replayed
        )
        let later = next(renamed) { $0.name = "crag" }
        try bobs.apply(GroupUpdate(action: .rename, state: later), from: alice.token)
        #expect(refusal { try bobs.apply(update, from: alice.token) } == .replayed)
        #expect(bobs.current == later)
    }

    @Test func aRemovedMembersMessagesAfterTheRemovalAreRefused() throws {
        var bobs = try chain(as: bob)
        let removed = next(created) { $0.members.removeAll { $0.token == carol.token } }
        try bobs.apply(GroupUpdate(action: .remove, state: removed), from: alice.token)
        // Carol's message naming the state she was still in, or the new one, is not shown.
        let naming1 = try header(from: carol, state: created, to: [alice, bob], sequence: 1)
        #expect(refusal { _ = try bobs.admit(naming1) } == .notMember)
        let naming2 = try header(from: carol, state: removed, to: [alice, bob], sequence: 2)
        #expect(refusal { _ = try bobs.admit(naming2) } == .notMember)
        // Carol's own client learns she was removed.
        var carols = try chain(as: carol)
        try carols.apply(GroupUpdate(action: .remove, state: removed), from: alice.token)
        #expect(!carols.isMember)
    }

    @Test func aRemovedMemberCannotReAddThemselves() throws {
        // Carol was an admin at version 2 and is removed by alice at version 3.
        var bobs = try chain(as: bob)
        let promoted = next(created) { state in
            state.members = state.members.map { $0.token == carol.token ? member(carol, admin: true) : $0 }
        }
        try bobs.apply(GroupUpdate(action: .promote, state: promoted), from: alice.token)
        let removed = next(promoted) { $0.members.removeAll { $0.token == carol.token } }
        try bobs.apply(GroupUpdate(action: .remove, state: removed), from: alice.token)
        // Re-adding herself on the current state: she is no admin of it.
        let readded = next(removed) { $0.members.append(member(carol, joinedAt: 4)) }
        #expect(refusal { try bobs.apply(GroupUpdate(action: .add, state: readded), from: carol.token) } == .notAdmin)
        // Building on the state in which she was still an admin: does not chain onto the current one.
        let fork = next(promoted) { $0.name = "carol's now" }
        #expect(refusal { try bobs.apply(GroupUpdate(action: .rename, state: fork), from: carol.token) } == .fork)
        let longer = next(fork) { $0.name = "still carol's" }
        #expect(refusal { try bobs.apply(GroupUpdate(action: .rename, state: longer), from: carol.token) } == .fork)
        #expect(bobs.current == removed)
    }

    @Test func theFirstOfTwoConcurrentUpdatesWinsAndTheSecondIsReportedAsAFork() throws {
        var bobs = try chain(as: bob)
        let promoted = next(created) { state in
            state.members = state.members.map { $0.token == carol.token ? member(carol, admin: true) : $0 }
        }
        try bobs.apply(GroupUpdate(action: .promote, state: promoted), from: alice.token)
        let byAlice = next(promoted) { $0.name = "alice's name" }
        let byCarol = next(promoted) { $0.name = "carol's name" }
        try bobs.apply(GroupUpdate(action: .rename, state: byAlice), from: alice.token)
        #expect(refusal { try bobs.apply(GroupUpdate(action: .rename, state: byCarol), from: carol.token) } == .fork)
        let skipping = next(next(byAlice) { $0.name = "x" }) { $0.name = "y" }
        #expect(refusal { try bobs.apply(GroupUpdate(action: .rename, state: skipping), from: alice.token) } == .gap)
    }

    @Test func changesOtherThanTheNamedActionAreRefused() throws {
        var bobs = try chain(as: bob)
        let sneaky = next(created) { state in
            state.name = "renamed"
            state.members.append(member(mallory, joinedAt: 2))
        }
        #expect(
            refusal { try bobs.apply(GroupUpdate(action: .add, state: sneaky), from: alice.token) } == .invalidChange
        )
        let adminAdded = next(created) { $0.members.append(member(mallory, admin: true, joinedAt: 2)) }
        #expect(
            refusal { try bobs.apply(GroupUpdate(action: .add, state: adminAdded), from: alice.token) }
                == .invalidChange
        )
        // With carol an admin too, alice removing herself is still no `remove` (that is `leave`).
        let promoted = next(created) { state in
            state.members = state.members.map { $0.token == carol.token ? member(carol, admin: true) : $0 }
        }
        try bobs.apply(GroupUpdate(action: .promote, state: promoted), from: alice.token)
        let selfRemoval = next(promoted) { $0.members.removeAll { $0.token == alice.token } }
        #expect(
            refusal { try bobs.apply(GroupUpdate(action: .remove, state: selfRemoval), from: alice.token) }
                == .invalidChange
        )
    }

    @Test func theLastAdminLeavingPromotesTheLongestStandingMember() throws {
        var bobs = try chain(as: bob)
        let withMallory = next(created) { $0.members.append(member(mallory, joinedAt: 2)) }
        try bobs.apply(GroupUpdate(action: .add, state: withMallory), from: alice.token)
        let heirToken = min(bob.token, carol.token)
        let wrongHeir = next(withMallory) { state in
            state.members.removeAll { $0.token == alice.token }
            state.members = state.members.map {
                $0.token == mallory.token ? member(mallory, admin: true, joinedAt: 2) : $0
            }
        }
        #expect(
            refusal { try bobs.apply(GroupUpdate(action: .leave, state: wrongHeir), from: alice.token) }
                == .invalidChange
        )
        let left = next(withMallory) { state in
            state.members.removeAll { $0.token == alice.token }
            state.members = state.members.map {
                $0.token == heirToken
                    ? GroupMember(token: $0.token, fingerprint: $0.fingerprint, isAdmin: true, joinedAt: 1) : $0
            }
        }
        try bobs.apply(GroupUpdate(action: .leave, state: left), from: alice.token)
        #expect(bobs.current.isAdmin(heirToken))
        #expect(bobs.current.member(alice.token) == nil)
    }

    @Test func aRecipientListThatIsNotTheMembershipIsShownWithAWarning() throws {
        var bobs = try chain(as: bob)
        #expect(try bobs.admit(try header(from: alice, state: created, to: [bob, carol])).isEmpty)
        let leaked = try header(from: alice, state: created, to: [bob, mallory], sequence: 2)
        #expect(
            try bobs.admit(leaked) == [.recipientsDiffer(extra: [mallory.token], missing: [carol.token])]
        )
    }

    @Test func aGapInASendersSequenceNamesTheMissedMessagesAndAReusedOneIsRefused() throws {
        var bobs = try chain(as: bob)
        #expect(try bobs.admit(try header(from: alice, state: created, to: [bob, carol], sequence: 3)).isEmpty)
        #expect(
            try bobs.admit(try header(from: alice, state: created, to: [bob, carol], sequence: 6))
                == [.missedMessages(from: alice.token, count: 2)]
        )
        let reused = try header(from: alice, state: created, to: [bob, carol], sequence: 6)
        #expect(refusal { _ = try bobs.admit(reused) } == .sequenceReused)
    }

    @Test func anUpdateEnvelopeMustNameTheStateItIsBuiltOnAndReachTheRemovedMember() throws {
        var carols = try chain(as: carol)
        let removed = next(created) { $0.members.removeAll { $0.token == carol.token } }
        let update = GroupUpdate(action: .remove, state: removed)
        let wrongReference = try header(from: alice, state: removed, to: [alice, bob, carol])
        #expect(refusal { _ = try carols.receive(update, in: wrongReference) } == .invalidChange)
        let carrying = try header(from: alice, state: created, to: [alice, bob, carol])
        let (state, warnings) = try carols.receive(update, in: carrying)
        #expect(state == removed)
        #expect(warnings.isEmpty)
        #expect(!carols.isMember)
    }
}
