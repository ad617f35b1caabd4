import Foundation
import Testing
import WotsCore
import WotsStorage

/// Suspension by the operator, and the statistics of `admin stats`.
extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func suspendingEndsSessionsKeepsTheNicknameTakenAndUnsuspendingLiftsIt(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            let session = TestValues.randomBytes(32)
            try await backend.authentication.storeSession(
                hash: session,
                token: alice.token,
                expiresAt: TestValues.time(4_000_000_000_000)
            )
            let suspendedAt = TestValues.time(1_700_000_100_000)
            expectSame(try await backend.administration.suspend(token: alice.token, at: suspendedAt), alice)
            try await backend.administration.suspend(token: alice.token, at: TestValues.time(1_700_000_200_000))
            #expect(try await backend.administration.suspension(of: alice.token) == suspendedAt)
            #expect(try await backend.administration.suspensions() == [alice.token: suspendedAt])
            #expect(try await backend.authentication.session(hash: session, now: TestValues.time()) == nil)
            expectSame(try await backend.directory.entry(token: alice.token), alice)
            await expectStorageError(.nicknameTaken) {
                try await backend.directory.create(TestValues.entry("ALICE"))
            }
            try await backend.administration.unsuspend(token: alice.token)
            #expect(try await backend.administration.suspension(of: alice.token) == nil)
            #expect(try await backend.administration.suspensions().isEmpty)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func suspendingAnUnknownOrDeletedAccountIsRefused(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            await expectStorageError(.unknownToken) {
                try await backend.administration.suspend(token: TestValues.token(), at: TestValues.time())
            }
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            try await backend.administration.suspend(token: alice.token, at: TestValues.time())
            try await backend.accounts.deleteAccount(token: alice.token)
            #expect(try await backend.administration.suspension(of: alice.token) == nil)
            await expectStorageError(.unknownToken) {
                try await backend.administration.unsuspend(token: alice.token)
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func statisticsCountAccountsQueuedMailAndRegistrationsPerDay(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let day: Int64 = 86_400_000
            let now = TestValues.time(1_700_000_000_000)  // 2023-11-14T22:13:20Z
            var alice = TestValues.entry("alice")
            alice.registeredAt = TestValues.time(1_700_000_000_000 - 2 * day)
            var bob = TestValues.entry("bob")
            bob.registeredAt = TestValues.time(1_700_000_000_000 - 2 * day + 1_000)
            var carol = TestValues.entry("carol")
            carol.registeredAt = TestValues.time(1_700_000_000_000 - 40 * day)
            var dave = TestValues.entry("dave")
            dave.registeredAt = now
            for entry in [alice, bob, carol, dave] { try await backend.directory.create(entry) }
            try await backend.accounts.deleteAccount(token: dave.token)
            try await backend.administration.suspend(token: bob.token, at: now)
            let first = TestValues.envelope(from: bob.token, to: alice.token)
            let second = TestValues.envelope(from: carol.token, to: alice.token)
            _ = try await backend.mailboxes.append(
                first,
                receivedAt: TestValues.time(1_699_000_000_000),
                mailboxCapacity: 10
            )
            _ = try await backend.mailboxes.append(second, receivedAt: now, mailboxCapacity: 10)

            let statistics = try await backend.administration.statistics(now: now, days: 30)
            #expect(statistics.accounts == 3)
            #expect(statistics.suspendedAccounts == 1)
            #expect(statistics.queuedMessages == 2)
            #expect(statistics.queuedBytes == first.serializedSize + second.serializedSize)
            #expect(statistics.oldestQueuedAt == TestValues.time(1_699_000_000_000))
            #expect(statistics.registrationsPerDay.count == 30)
            #expect(statistics.registrationsPerDay.last?.registrations == 1, "dave, deleted, registered today")
            #expect(statistics.registrationsPerDay[27].registrations == 2, "alice and bob, two days ago")
            #expect(statistics.registrationsPerDay.map(\.registrations).reduce(0, +) == 3, "carol is too old")
            #expect(
                statistics.registrationsPerDay.last?.start
                    == Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
            )
        }
    }
}
