import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// The relay half refusing stands in for `409 nickname_taken`.
struct RefusingRelay: SaveParticipant {
    struct Item: Sendable {}

    func save(_ item: Item) async throws {
        throw WotsError(.nicknameTaken, "nickname \"alice\" is taken")
    }

    func undo(_ item: Item) async throws {}
}

@Suite struct RegistrationTests {
    let alice = TestIdentities.alice

    func account() throws -> LocalAccount {
        LocalAccount(
            profile: Profile(
                token: alice.token,
                nickname: alice.nickname,
                relay: "http://127.0.0.1:8080",
                publicKeys: alice.publicKeys,
                fingerprint: alice.fingerprint,
                registeredAt: Date()
            ),
            privateRecord: try alice.privateRecord()
        )
    }

    @Test func aRefusedRegistrationLeavesNoLocalFiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        let bus = EventBus()
        let failures = bus.subscribe(to: RegistrationFailed.self)
        let coordinator = SaveCoordinator(
            publicHalf: RefusingRelay(),
            privateHalf: LocalKeyStore(store: store),
            bus: bus
        )
        let error = await #expect(throws: WotsError.self) {
            try await coordinator.save(
                token: alice.token,
                nickname: alice.nickname,
                publicItem: RefusingRelay.Item(),
                privateItem: try account()
            )
        }
        #expect(error?.code == .nicknameTaken)
        #expect(!store.hasAccount)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.home.path)) ?? []
        #expect(left.isEmpty, "left behind: \(left)")
        var iterator = failures.makeAsyncIterator()
        #expect(await iterator.next()?.nickname == alice.nickname)
    }
}
