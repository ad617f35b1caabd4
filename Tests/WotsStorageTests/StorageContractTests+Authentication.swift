import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func aChallengeCanBeAnsweredOnlyOnce(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let nonce = TestValues.randomBytes(40)
            let expiresAt = TestValues.time().addingTimeInterval(60)
            let first = try await backend.authentication.useChallenge(nonce, expiresAt: expiresAt)
            #expect(first == true)
            #expect(try await backend.authentication.useChallenge(nonce, expiresAt: expiresAt) == false)
            #expect(try await backend.authentication.useChallenge(TestValues.randomBytes(40), expiresAt: expiresAt))
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func racingAnswersToOneChallengeHaveOneWinner(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let nonce = TestValues.randomBytes(40)
            let expiresAt = TestValues.time().addingTimeInterval(60)
            let authentication = backend.authentication
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await authentication.useChallenge(nonce, expiresAt: expiresAt) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRelaySecretIsStoredOncePerName(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let first = TestValues.randomBytes(32)
            let stored = try await backend.authentication.relaySecret(named: "challenge-mac", storingIfAbsent: first)
            let again = try await backend.authentication.relaySecret(
                named: "challenge-mac",
                storingIfAbsent: TestValues.randomBytes(32)
            )
            let other = TestValues.randomBytes(32)
            #expect(stored == first && again == first)
            #expect(try await backend.authentication.relaySecret(named: "other", storingIfAbsent: other) == other)
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
            _ = try await backend.authentication.useChallenge(
                TestValues.randomBytes(32),
                expiresAt: now.addingTimeInterval(-1)
            )
            _ = try await backend.authentication.useChallenge(live, expiresAt: now.addingTimeInterval(60))
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
            #expect(
                try await backend.authentication.useChallenge(live, expiresAt: now.addingTimeInterval(60)) == false,
                "a live answered challenge is still remembered"
            )
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
