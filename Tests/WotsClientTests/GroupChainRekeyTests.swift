import Foundation
import Testing
import WotsClient
import WotsCore
import WotsCrypto
import WotsTesting

/// `rekey`: the group state learns a member's new key only through a signed update, by an admin for anyone or by a
/// member for itself; and which ephemeral messages (typing) a member shows.
@Suite struct GroupChainRekeyTests {
    let base = GroupChainTests()
    var alice: TestIdentity { self.base.alice }
    var bob: TestIdentity { self.base.bob }
    var carol: TestIdentity { self.base.carol }
    let newKey = TestIdentities.mallory.fingerprint

    func rekeyed(_ who: TestIdentity, in state: GroupState) -> GroupState {
        self.base.next(state) { next in
            for index in next.members.indices where next.members[index].token == who.token {
                next.members[index].fingerprint = self.newKey
            }
        }
    }

    @Test func anAdminRecordsAnotherMembersNewKey() throws {
        var chain = try self.base.chain(as: carol)
        let state = try chain.apply(
            GroupUpdate(action: .rekey, state: self.rekeyed(bob, in: chain.current)),
            from: alice.token
        )
        #expect(state.member(bob.token)?.fingerprint == self.newKey)
    }

    @Test func aMemberRecordsItsOwnNewKeyButNobodyElses() throws {
        var chain = try self.base.chain(as: alice)
        let own = self.rekeyed(bob, in: chain.current)
        let other = self.rekeyed(carol, in: chain.current)
        #expect(
            self.base.refusal { try chain.apply(GroupUpdate(action: .rekey, state: other), from: bob.token) }
                == .notAdmin
        )
        #expect(self.base.refusal { try chain.apply(GroupUpdate(action: .rekey, state: own), from: bob.token) } == nil)
    }

    @Test func aRekeyThatChangesAnythingButKeysIsRefused() throws {
        var chain = try self.base.chain(as: bob)
        var promoted = self.rekeyed(carol, in: chain.current)
        for index in promoted.members.indices where promoted.members[index].token == carol.token {
            promoted.members[index].isAdmin = true
        }
        let nothing = self.base.next(chain.current) { _ in }
        var renamed = self.rekeyed(carol, in: chain.current)
        renamed.name = "other"
        for state in [promoted, nothing, renamed] {
            #expect(
                self.base.refusal { try chain.apply(GroupUpdate(action: .rekey, state: state), from: alice.token) }
                    == .invalidChange
            )
        }
        #expect(chain.current.version == 1, "nothing was applied")
    }

    @Test func typingIsShownOnlyFromAMemberOfTheNamedAndTheCurrentState() throws {
        var chain = try self.base.chain(as: bob)
        let created = chain.current
        let fromCarol = try self.base.header(from: carol, state: created, to: [alice, bob])
        #expect(chain.admitsEphemeral(fromCarol))
        let unknown = GroupState(
            id: created.id,
            version: 9,
            previous: created.stateHash,
            name: created.name,
            members: created.members
        )
        #expect(!chain.admitsEphemeral(try self.base.header(from: carol, state: unknown, to: [alice, bob])))
        let removed = self.base.next(created) { $0.members.removeAll { $0.token == self.carol.token } }
        try chain.apply(GroupUpdate(action: .remove, state: removed), from: alice.token)
        #expect(!chain.admitsEphemeral(fromCarol), "carol was removed")
        #expect(!chain.admitsEphemeral(try self.base.header(from: TestIdentities.mallory, state: created, to: [bob])))
        let sequenceBefore = chain.lastSequence
        #expect(chain.admitsEphemeral(try self.base.header(from: alice, state: removed, to: [bob], sequence: 7)))
        #expect(chain.lastSequence == sequenceBefore, "an ephemeral message records no sequence")
    }
}
