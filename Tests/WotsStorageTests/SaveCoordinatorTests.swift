import Foundation
import Logging
import Testing
import WotsCore
import WotsStorage

/// A store that holds what was saved and can be told to fail or to be slow.
actor FlakyStore {
    enum Behaviour: Sendable { case works, fails, slow, failsToUndo }

    private(set) var items: Set<String> = []
    let behaviour: Behaviour

    init(_ behaviour: Behaviour) { self.behaviour = behaviour }

    func save(_ item: String) async throws {
        switch self.behaviour {
        case .fails: throw WotsError(.storageUnavailable, "disk full")
        case .slow: try await Task.sleep(for: .milliseconds(50))
        case .works, .failsToUndo: break
        }
        self.items.insert(item)
    }

    func undo(_ item: String) throws {
        if self.behaviour == .failsToUndo { throw WotsError(.storageUnavailable, "connection lost") }
        self.items.remove(item)
    }
}

struct FlakyParticipant: SaveParticipant {
    let store: FlakyStore
    func save(_ item: String) async throws { try await self.store.save(item) }
    func undo(_ item: String) async throws { try await self.store.undo(item) }
}

@Suite struct SaveCoordinatorTests {
    typealias Behaviour = FlakyStore.Behaviour

    static let token = try! Token(bytes: Array(repeating: 9, count: 16))
    static let nickname = try! Nickname("ada")

    struct Outcome: Sendable {
        var publicItems: Set<String>
        var privateItems: Set<String>
        var saved: Int
        var failed: [RegistrationFailed]
        var error: (any Error)?
    }

    private func save(public publicBehaviour: Behaviour, private privateBehaviour: Behaviour) async -> Outcome {
        let bus = EventBus()
        let savedEvents = bus.subscribe(to: RegistrationSaved.self)
        let failedEvents = bus.subscribe(to: RegistrationFailed.self)
        let publicStore = FlakyStore(publicBehaviour)
        let privateStore = FlakyStore(privateBehaviour)
        let coordinator = SaveCoordinator(
            publicHalf: FlakyParticipant(store: publicStore),
            privateHalf: FlakyParticipant(store: privateStore),
            bus: bus
        )
        var thrown: (any Error)?
        do {
            try await coordinator.save(
                token: Self.token,
                nickname: Self.nickname,
                publicItem: "entry",
                privateItem: "record"
            )
        } catch {
            thrown = error
        }
        bus.publish(RegistrationSaved(token: Self.token, nickname: try! Nickname("end")))
        bus.publish(RegistrationFailed(token: Self.token, nickname: try! Nickname("end"), reason: "end"))
        var saved = 0
        for await event in savedEvents {
            if event.nickname.value == "end" { break }
            saved += 1
        }
        var failed: [RegistrationFailed] = []
        for await event in failedEvents {
            if event.nickname.value == "end" { break }
            failed.append(event)
        }
        return Outcome(
            publicItems: await publicStore.items,
            privateItems: await privateStore.items,
            saved: saved,
            failed: failed,
            error: thrown
        )
    }

    @Test(arguments: [Behaviour.works, .slow])
    func bothHalvesLandingPublishesSavedOnce(behaviour: Behaviour) async {
        let outcome = await self.save(public: behaviour, private: .works)
        #expect(outcome.error == nil)
        #expect(outcome.publicItems == ["entry"])
        #expect(outcome.privateItems == ["record"])
        #expect(outcome.saved == 1)
        #expect(outcome.failed.isEmpty)
    }

    @Test(arguments: [
        (Behaviour.fails, Behaviour.works),
        (.works, .fails),
        (.fails, .fails),
        (.fails, .slow),
        (.slow, .fails),
    ])
    func anyFailureLeavesNeitherHalfAndPublishesOneFailure(publicBehaviour: Behaviour, privateBehaviour: Behaviour)
        async
    {
        let outcome = await self.save(public: publicBehaviour, private: privateBehaviour)
        #expect(outcome.error as? WotsError == WotsError(.storageUnavailable, ""))
        #expect(outcome.publicItems.isEmpty)
        #expect(outcome.privateItems.isEmpty)
        #expect(outcome.saved == 0)
        #expect(outcome.failed.count == 1)
        #expect(outcome.failed.first?.reason.contains("disk full") == true)
    }

    @Test func aFailedUndoIsReportedInTheFailure() async {
        let outcome = await self.save(public: .fails, private: .failsToUndo)
        #expect(outcome.failed.count == 1)
        #expect(outcome.failed.first?.reason.contains("undoing the private half failed") == true)
    }

    @Test func theRelayPairingNeverLeavesAnEntryWithoutItsRecord() async throws {
        let directory = InMemoryDirectoryRepository()
        let records = InMemoryPrivateRecordRepository()
        let bus = EventBus()
        let coordinator = SaveCoordinator(
            publicHalf: DirectoryEntryParticipant(repository: directory),
            privateHalf: PrivateRecordParticipant(repository: records),
            bus: bus
        )
        let token = Self.token
        let record = PrivateRecord(
            token: token,
            keyDerivation: KeyDerivationParameters(salt: [1, 2, 3]),
            sealedPrivateKeys: [4, 5, 6],
            secretVerifier: Array(repeating: 7, count: 32),
            avatar: nil
        )
        try await records.create(record)
        let entry = DirectoryEntry(
            token: token,
            nickname: Self.nickname,
            publicKeys: PublicKeys(signing: [1], encryption: [2]),
            fingerprint: try Fingerprint(bytes: Array(repeating: 3, count: 32)),
            registeredAt: Date()
        )
        await #expect(throws: WotsError(.tokenTaken, "")) {
            try await coordinator.save(token: token, nickname: Self.nickname, publicItem: entry, privateItem: record)
        }
        #expect(try await directory.entry(token: token) == nil)
        #expect(try await records.record(for: token) == record)
    }
}
