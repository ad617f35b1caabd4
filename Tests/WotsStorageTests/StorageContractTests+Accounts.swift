import Foundation
import Testing
import WotsCore
import WotsStorage

/// Deleting an account and rotating its keys: one transaction each, whole or not at all, on every backend.
extension StorageContractTests {
    /// Alice registered with a private record, a waiting and an acknowledged message, and a session.
    private func registeredAlice(in backend: StorageBackend) async throws -> (DirectoryEntry, [UInt8]) {
        let alice = TestValues.entry("alice")
        try await backend.directory.create(alice)
        try await backend.privateRecords.create(TestValues.record(alice.token))
        let acknowledged = TestValues.envelope(from: TestValues.token(), to: alice.token)
        _ = try await backend.mailboxes.append(acknowledged, receivedAt: TestValues.time(), mailboxCapacity: 10)
        _ = try await backend.mailboxes.append(
            TestValues.envelope(from: TestValues.token(), to: alice.token),
            receivedAt: TestValues.time(),
            mailboxCapacity: 10
        )
        try await backend.mailboxes.acknowledge(
            [acknowledged.header.messageKey],
            for: alice.token,
            at: TestValues.time()
        )
        let session = TestValues.randomBytes(32)
        try await backend.authentication.storeSession(
            hash: session,
            token: alice.token,
            expiresAt: TestValues.time(4_000_000_000_000)
        )
        return (alice, session)
    }

    @Test(arguments: StorageBackendKind.allCases)
    func deletingAnAccountRemovesEveryPartOfItAndKeepsItsNicknameTaken(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, session) = try await self.registeredAlice(in: backend)
            let deleted = try await backend.accounts.deleteAccount(token: alice.token)
            expectSame(deleted, alice)
            #expect(try await backend.directory.entry(token: alice.token) == nil)
            #expect(try await backend.privateRecords.record(for: alice.token) == nil)
            #expect(try await backend.mailboxes.depth(of: alice.token) == 0)
            #expect(try await backend.mailboxes.forgetAcknowledgements(before: TestValues.time(4_000_000_000_000)) == 0)
            #expect(try await backend.authentication.session(hash: session, now: TestValues.time()) == nil)
            await expectStorageError(.nicknameTaken) {
                try await backend.directory.create(TestValues.entry("alice"))
            }
            await expectStorageError(.unknownToken) {
                try await backend.accounts.deleteAccount(token: alice.token)
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func rotatingKeysReplacesKeysAndRecordAndEndsEverySession(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, session) = try await self.registeredAlice(in: backend)
            let keys = TestValues.publicKeys()
            let fingerprint = TestValues.fingerprint()
            let record = TestValues.record(alice.token, avatar: .preset(.dragon))
            let updated = try await backend.accounts.rotateKeys(
                token: alice.token,
                publicKeys: keys,
                fingerprint: fingerprint,
                record: record
            )
            #expect(
                updated.publicKeys == keys && updated.fingerprint == fingerprint && updated.nickname == alice.nickname
            )
            #expect(try await backend.directory.entry(token: alice.token)?.fingerprint == fingerprint)
            #expect(try await backend.privateRecords.record(for: alice.token) == record)
            #expect(try await backend.authentication.session(hash: session, now: TestValues.time()) == nil)
            #expect(try await backend.mailboxes.depth(of: alice.token) == 1, "waiting mail stays for the retired key")

            await expectStorageError(.recordTokenMismatch) {
                _ = try await backend.accounts.rotateKeys(
                    token: alice.token,
                    publicKeys: TestValues.publicKeys(),
                    fingerprint: TestValues.fingerprint(),
                    record: TestValues.record()
                )
            }
            await expectStorageError(.unknownToken) {
                let stranger = TestValues.token()
                _ = try await backend.accounts.rotateKeys(
                    token: stranger,
                    publicKeys: TestValues.publicKeys(),
                    fingerprint: TestValues.fingerprint(),
                    record: TestValues.record(stranger)
                )
            }
            #expect(try await backend.directory.entry(token: alice.token)?.fingerprint == fingerprint)
        }
    }

    @Test(arguments: [StorageBackendKind.sqlite, .postgres])
    func anAccountChangeThatFailsAtItsLastStepLeavesTheAccountExactlyAsItWas(
        kind: StorageBackendKind
    ) async throws {
        try await withBackend(kind) { backend in
            let (alice, session) = try await self.registeredAlice(in: backend)
            let record = try await backend.privateRecords.record(for: alice.token)
            let failSessionDeletions = try #require(backend.failSessionDeletions)
            try await failSessionDeletions()

            await expectStorageError(.storageUnavailable) {
                try await backend.accounts.deleteAccount(token: alice.token)
            }
            await expectStorageError(.storageUnavailable) {
                _ = try await backend.accounts.rotateKeys(
                    token: alice.token,
                    publicKeys: TestValues.publicKeys(),
                    fingerprint: TestValues.fingerprint(),
                    record: TestValues.record(alice.token, avatar: nil)
                )
            }
            expectSame(try await backend.directory.entry(token: alice.token), alice)
            #expect(try await backend.privateRecords.record(for: alice.token) == record)
            #expect(try await backend.mailboxes.depth(of: alice.token) == 1)
            #expect(
                try await backend.authentication.session(hash: session, now: TestValues.time())?.token == alice.token
            )
        }
    }
}
