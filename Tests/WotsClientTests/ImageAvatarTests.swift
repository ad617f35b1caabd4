import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// An image avatar reaches a new contact as an encrypted blob in a `profile` message and is saved in their home.
@Suite struct ImageAvatarTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<2_000).map { UInt8($0 % 251) }

    /// Runs bob's inbox; returns the profiles and the invalid messages' codes it reported.
    func inbox(of bob: Messenger) async throws -> (profiles: [PeerAvatar], problems: [ErrorCode]) {
        var profiles: [PeerAvatar] = []
        var problems: [ErrorCode] = []
        _ = try await bob.inbox(
            keep: false,
            show: { message in if let problem = message.problem { problems.append(problem.code) } },
            event: { event in if case .profile(_, let avatar) = event { profiles.append(avatar) } }
        )
        return (profiles, problems)
    }

    @Test func theFirstMessageToANewContactCarriesTheImageWhichIsSavedAndRecorded() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice, avatar: try Avatar.validatedImage(Self.png))
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("hi, it's alice", to: TestIdentities.bob.nickname)

            let saved = bob.store.avatarsFolder.appendingPathComponent("alice.png")
            #expect(try await inbox(of: bob).profiles == [.image(path: saved.path)])
            #expect(try Array(Data(contentsOf: saved)) == Self.png)
            #expect(try mode(of: saved) == 0o600)
            let history = try bob.openHistory(try await bob.unlock())
            #expect(try history.avatar(of: TestIdentities.alice.token) == .image(path: saved.path))
            #expect(try bob.store.peerAvatar(of: TestIdentities.alice.token) == .image(path: saved.path))

            // A later profile replaces the file; nothing else is left in the folder.
            let keeper = try ConversationKeeper(
                messenger: alice,
                unlocked: try await alice.unlock(),
                readReceipts: true
            )
            try await keeper.sendProfile(to: TestIdentities.bob.token)
            #expect(try await inbox(of: bob).profiles == [.image(path: saved.path)])
            #expect(try FileManager.default.contentsOfDirectory(atPath: bob.store.avatarsFolder.path) == ["alice.png"])
        }
    }

    @Test func inboxKeepLeavesTheImageAtTheRelayForTheNextRun() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice, avatar: try Avatar.validatedImage(Self.png))
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("hi, it's alice", to: TestIdentities.bob.nickname)
            let saved = bob.store.avatarsFolder.appendingPathComponent("alice.png")

            var profiles: [PeerAvatar] = []
            var problems: [String] = []
            _ = try await bob.inbox(
                keep: true,
                show: { message in if let problem = message.problem { problems.append(problem.message) } },
                event: { event in if case .profile(_, let avatar) = event { profiles.append(avatar) } }
            )
            #expect(profiles == [.image(path: saved.path)])
            #expect(problems.isEmpty)
            let again = try await inbox(of: bob)
            #expect(again.profiles == [.image(path: saved.path)])
            #expect(again.problems.isEmpty)
        }
    }

    @Test func aProfileImageThatIsNotAPictureIsRefusedAndNothingIsSaved() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("hi", to: TestIdentities.bob.nickname)
            _ = try await inbox(of: bob)

            let text = relay.folder.url.appendingPathComponent("not-a-picture.png")
            try Data("just some text, no PNG header".utf8).write(to: text)
            let reference = try await alice.uploadAttachment(
                at: text.path,
                caption: nil,
                for: TestIdentities.bob.token,
                progress: nil
            )
            let keeper = try ConversationKeeper(
                messenger: alice,
                unlocked: try await alice.unlock(),
                readReceipts: true
            )
            _ = try await keeper.send(.profile(.image(reference)), to: TestIdentities.bob.token)

            let (profiles, problems) = try await inbox(of: bob)
            #expect(profiles.isEmpty)
            #expect(problems == [.invalidAvatar])
            #expect(
                !FileManager.default.fileExists(
                    atPath: bob.store.avatarsFolder.appendingPathComponent("alice.png").path
                )
            )
            #expect(try bob.store.peerAvatar(of: TestIdentities.alice.token) == nil)
        }
    }
}
