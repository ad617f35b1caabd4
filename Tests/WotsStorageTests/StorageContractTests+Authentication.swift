import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func aChallengeCanBeConsumedOnlyOnce(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let nonce = TestValues.randomBytes(32)
            let now = TestValues.time()
            try await backend.authentication.storeChallenge(nonce, expiresAt: now.addingTimeInterval(60))
            #expect(try await backend.authentication.consumeChallenge(nonce, now: now) == true)
            #expect(try await backend.authentication.consumeChallenge(nonce, now: now) == false)
            #expect(try await backend.authentication.consumeChallenge(TestValues.randomBytes(32), now: now) == false)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func racingConsumersOfOneChallengeHaveOneWinner(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let nonce = TestValues.randomBytes(32)
            let now = TestValues.time()
            try await backend.authentication.storeChallenge(nonce, expiresAt: now.addingTimeInterval(60))
            let authentication = backend.authentication
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await authentication.consumeChallenge(nonce, now: now) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anExpiredChallengeIsRefusedAndGone(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let nonce = TestValues.randomBytes(32)
            let now = TestValues.time()
            try await backend.authentication.storeChallenge(nonce, expiresAt: now)
            #expect(try await backend.authentication.consumeChallenge(nonce, now: now.addingTimeInterval(1)) == false)
            try await backend.authentication.storeChallenge(nonce, expiresAt: now.addingTimeInterval(60))
            #expect(try await backend.authentication.consumeChallenge(nonce, now: now.addingTimeInterval(61)) == false)
            #expect(try await backend.authentication.consumeChallenge(nonce, now: now) == false)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aSessionIsFoundByItsHashUntilItExpiresOrIsDeleted(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let now = TestValues.time()
            let first = TestValues.randomBytes(32)
            let second = TestValues.randomBytes(32)
            let bobs = TestValues.randomBytes(32)
            try await backend.authentication.storeSession(
                hash: first,
                token: alice,
                expiresAt: now.addingTimeInterval(60)
            )
            try await backend.authentication.storeSession(
                hash: second,
                token: alice,
                expiresAt: now.addingTimeInterval(60)
            )
            try await backend.authentication.storeSession(hash: bobs, token: bob, expiresAt: now.addingTimeInterval(60))

            #expect(
                try await backend.authentication.session(hash: first, now: now)
                    == ActiveSession(token: alice, expiresAt: now.addingTimeInterval(60)),
                "a session tells its account and its expiry"
            )
            #expect(try await backend.authentication.session(hash: bobs, now: now)?.token == bob)
            #expect(try await backend.authentication.session(hash: TestValues.randomBytes(32), now: now) == nil)
            #expect(try await backend.authentication.session(hash: first, now: now.addingTimeInterval(61)) == nil)

            try await backend.authentication.deleteSessions(of: alice)
            #expect(try await backend.authentication.session(hash: first, now: now) == nil)
            #expect(try await backend.authentication.session(hash: second, now: now) == nil)
            #expect(try await backend.authentication.session(hash: bobs, now: now)?.token == bob)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func sweepingRemovesOnlyExpiredChallengesAndSessions(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let now = TestValues.time()
            let live = TestValues.randomBytes(32)
            let liveSession = TestValues.randomBytes(32)
            try await backend.authentication.storeChallenge(
                TestValues.randomBytes(32),
                expiresAt: now.addingTimeInterval(-1)
            )
            try await backend.authentication.storeChallenge(live, expiresAt: now.addingTimeInterval(60))
            try await backend.authentication.storeSession(
                hash: TestValues.randomBytes(32),
                token: TestValues.token(),
                expiresAt: now.addingTimeInterval(-1)
            )
            let alice = TestValues.token()
            try await backend.authentication.storeSession(
                hash: liveSession,
                token: alice,
                expiresAt: now.addingTimeInterval(60)
            )

            #expect(try await backend.authentication.sweepExpired(now: now) == 2)
            #expect(try await backend.authentication.sweepExpired(now: now) == 0)
            #expect(try await backend.authentication.session(hash: liveSession, now: now)?.token == alice)
            #expect(try await backend.authentication.consumeChallenge(live, now: now) == true)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func theRelayIDIsStoredOnce(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let first = TestValues.randomBytes(32)
            let stored = try await backend.authentication.relayID(storingIfAbsent: first)
            let storedAgain = try await backend.authentication.relayID(storingIfAbsent: TestValues.randomBytes(32))
            #expect(stored == first)
            #expect(storedAgain == first)
        }
    }
}
