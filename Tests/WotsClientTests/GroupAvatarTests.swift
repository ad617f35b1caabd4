import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// A group's avatar: a preset set at creation or changed by an admin, in the signed state every member holds.
@Suite struct GroupAvatarTests {
    @Test func theAvatarSetAtCreationAndChangedByAnAdminReachesEveryMember() async throws {
        try await LiveRelay.run { live in
            let alice = try await live.account(TestIdentities.alice)
            let bob = try await live.account(TestIdentities.bob)
            let created = try await alice.createGroup(
                named: "zoo",
                members: [TestIdentities.bob.nickname],
                avatar: .tiger
            )
            #expect(created.avatar == .tiger)
            _ = try await bob.groupInbox(keep: false)
            #expect(try bob.groups().first?.avatar == .tiger)

            let changed = try await alice.renameGroup("zoo", to: nil, avatar: .some(.dragon))
            #expect(changed.avatar == .dragon && changed.name == "zoo")
            #expect(try await bob.groupInbox(keep: false).map(\.line) == ["alice set the avatar of zoo to dragon"])
            #expect(try await bob.showGroup("zoo").avatar == .dragon)

            let removed = try await alice.renameGroup("zoo", to: nil, avatar: .some(nil))
            #expect(removed.avatar == nil)
            let refused = await #expect(throws: WotsError.self) {
                try await bob.renameGroup("zoo", to: nil, avatar: .some(.pig))
            }
            #expect(refused?.code == .invalidInput, "only an admin changes the avatar")
        }
    }
}
