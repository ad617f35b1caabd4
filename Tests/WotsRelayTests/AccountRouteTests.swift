import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

@Suite struct AccountRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    func derivedKeys(_ client: some TestClientProtocol, secret: String) async throws -> SecretKeys {
        let parameters = try await client.request(
            "/v1/restore/parameters",
            method: .post,
            body: try jsonBody(RestoreParametersRequest(nickname: alice.nickname))
        ).decode(RestoreParametersResponse.self)
        return try SecretKeys.derive(secret: secret, parameters: parameters.keyDerivation)
    }

    @Test func restoringWithTheRightSecretReturnsTheSealedRecord() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let keys = try await self.derivedKeys(client, secret: alice.secret)
            let response = try await client.restore(alice.nickname, keys: keys)
            #expect(response.status == .ok)
            let account = try response.decode(AccountResponse.self)
            let restored = try account.privateRecord.openIdentity(secret: alice.secret)
            #expect(restored.fingerprint == alice.fingerprint)
        }
    }

    @Test func restoringWithAWrongSecretSaysSo() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let keys = try await self.derivedKeys(client, secret: "not the secret")
            let response = try await client.restore(alice.nickname, keys: keys)
            #expect(response.status == .forbidden)
            #expect(response.errorCode == .wrongSecret)
        }
    }

    @Test func restoreAttemptsPerAddressAndNicknameAreRateLimited() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.restoreRate = RateLimit(perSecond: 0.001, burst: 3)
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let wrong = SecretKeys(encryptionKey: [], authenticationKey: Array(repeating: 1, count: 32))
            for _ in 0..<3 {
                #expect(try await client.restore(alice.nickname, keys: wrong).errorCode == .wrongSecret)
            }
            let limited = try await client.restore(alice.nickname, keys: wrong)
            #expect(limited.status == .tooManyRequests)
            #expect(try await client.restore(bob.nickname, keys: wrong).status != .tooManyRequests)
        }
    }

    @Test func theSealedRecordIsNotReadableWithASessionAlone() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let session = try await client.login(alice)
            let response = try await client.request("/v1/private", method: .get, session: session)
            #expect(response.status == .notFound)
        }
    }

    @Test func rotatingKeysNeedsBothSignaturesAndChangesTheFingerprint() async throws {
        let harness = try await RelayHarness.make()
        let newIdentity = TestIdentities.carol.identity
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let session = try await client.login(alice)
            let proof = try RotationProof.sign(
                token: alice.token,
                oldIdentity: alice.identity,
                newIdentity: newIdentity
            )
            let (parameters, keys) = try TestSecretKeys.derived(from: alice.secret)
            let record = try PrivateRecord.seal(
                identity: newIdentity,
                token: alice.token,
                keys: keys,
                parameters: parameters
            )
            let onlyNew = RotationRequest(
                publicKeys: newIdentity.publicKeys,
                privateRecord: record,
                oldKeySignature: proof.newKeySignature.base64,
                newKeySignature: proof.newKeySignature.base64
            )
            let refused = try await client.request(
                "/v1/keys/rotate",
                method: .post,
                session: session,
                body: try jsonBody(onlyNew)
            )
            #expect(refused.errorCode == .badProof)
            let request = RotationRequest(
                publicKeys: newIdentity.publicKeys,
                privateRecord: record,
                oldKeySignature: proof.oldKeySignature.base64,
                newKeySignature: proof.newKeySignature.base64
            )
            let response = try await client.request(
                "/v1/keys/rotate",
                method: .post,
                session: session,
                body: try jsonBody(request)
            )
            #expect(response.status == .ok)
            #expect(try response.decode(DirectoryEntry.self).fingerprint == newIdentity.fingerprint)
        }
    }

    @Test func afterARotationTheOldKeysAreRefusedAtOnceAndTheNewOnesWork() async throws {
        let harness = try await RelayHarness.make()
        let rotatedBob = TestIdentity(
            token: bob.token,
            nickname: bob.nickname,
            identity: TestIdentities.carol.identity,
            secret: bob.secret
        )
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(bob)
            let aliceSession = try await client.login(alice)
            let bobSession = try await client.login(bob)
            // Both entries are now in use (and in the relay's memory): alice → bob and bob → alice.
            #expect(
                try await client.send(try seal("hi", from: alice, to: bob), session: aliceSession).status == .accepted
            )
            #expect(
                try await client.send(try seal("hey", from: bob, to: alice), session: bobSession).status == .accepted
            )

            let rotation = try self.rotationRequest(for: bob, to: rotatedBob.identity)
            let rotated = try await client.request(
                "/v1/keys/rotate",
                method: .post,
                session: bobSession,
                body: try jsonBody(rotation)
            )
            #expect(rotated.status == .ok)

            let toOldKey = try await client.send(try seal("stale", from: alice, to: bob), session: aliceSession)
            #expect(toOldKey.errorCode == .recipientKeyChanged)
            let oldSession = try await client.send(try seal("new", from: rotatedBob, to: alice), session: bobSession)
            #expect(oldSession.errorCode == .invalidSession, "a rotation ends every session of the account")
            let newSession = try await client.login(rotatedBob)
            let signedByOldKey = try await client.send(try seal("old", from: bob, to: alice), session: newSession)
            #expect(signedByOldKey.errorCode == .senderKeyMismatch, "\(signedByOldKey.errorMessage ?? "")")
            let toNewKey = try await client.send(try seal("fresh", from: alice, to: rotatedBob), session: aliceSession)
            #expect(toNewKey.status == .accepted)
            let signedByNewKey = try await client.send(
                try seal("new", from: rotatedBob, to: alice),
                session: newSession
            )
            #expect(signedByNewKey.status == .accepted)
        }
    }

    func rotationRequest(for user: TestIdentity, to newIdentity: IdentityKeys) throws -> RotationRequest {
        let proof = try RotationProof.sign(token: user.token, oldIdentity: user.identity, newIdentity: newIdentity)
        return RotationRequest(
            publicKeys: newIdentity.publicKeys,
            privateRecord: try PrivateRecord.seal(
                identity: newIdentity,
                token: user.token,
                keys: try user.secretKeys(),
                parameters: try TestSecretKeys.derived(from: user.secret).parameters
            ),
            oldKeySignature: proof.oldKeySignature.base64,
            newKeySignature: proof.newKeySignature.base64
        )
    }

    @Test func deletingTheAccountRemovesEntryRecordMailboxAndSessions() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(bob)
            let aliceSession = try await client.login(alice)
            let bobSession = try await client.login(bob)
            _ = try await client.send(try seal("bye", from: alice, to: bob), session: aliceSession)
            let deleted = try await client.deleteAccount(bob, session: bobSession)
            #expect(deleted.status == .noContent)
            #expect(try await client.request("/v1/directory/bob", method: .get).status == .notFound)
            #expect(try await client.request("/v1/messages", method: .get, session: bobSession).status == .unauthorized)
            #expect(try await harness.relay.storage.mailboxes.depth(of: bob.token) == 0)
            #expect(try await harness.relay.storage.privateRecords.record(for: bob.token) == nil)
            let again = try await client.request(
                "/v1/register",
                method: .post,
                body: try jsonBody(try await client.registrationRequest(for: carolAsBob()))
            )
            #expect(again.errorCode == .nicknameTaken)
        }
    }

    /// Carol's keys under bob's deleted nickname: a tombstone must refuse it.
    func carolAsBob() -> TestIdentity {
        TestIdentity(
            token: TestIdentities.carol.token,
            nickname: bob.nickname,
            identity: TestIdentities.carol.identity,
            secret: "x"
        )
    }

    @Test func healthReadinessAndMetricsAnswer() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            #expect(try await client.request("/healthz", method: .get).status == .ok)
            #expect(try await client.request("/readyz", method: .get).status == .ok)
            try await client.register(alice)
            let metrics = await harness.relay.scrapeMetrics()
            #expect(metrics.contains("wots_registrations_total 1"))
            #expect(metrics.contains("wots_mailbox_messages_waiting 0"))
        }
    }

    @Test func readinessFailsWhenTheDatabaseIsDown() async throws {
        var storage = RelayStorage.inMemory()
        storage.probe = { throw WotsError(.storageUnavailable, "the test's database is down") }
        let harness = try await RelayHarness.make(storage: storage)
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/readyz", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorCode == .notReady)
        }
    }
}
