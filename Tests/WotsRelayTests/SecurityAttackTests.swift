import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsStorage
import WotsTesting

@testable import WotsRelay

/// Each test plays one attack from SECURITY.md's attacker list and shows the relay refusing it.
@Suite struct SecurityAttackTests {
    let alice = TestIdentities.alice
    let mallory = TestIdentities.mallory

    @Test func aRestoreProofSeenOnceCannotBeReplayed() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let challenge = try await client.challenge()
            let signature = try alice.secretKeys().signRestore(
                relayID: challenge.relayID,
                nonce: challenge.nonceBytes,
                nickname: alice.nickname
            )
            let request = try jsonBody(
                RestoreRequest(nickname: alice.nickname, nonce: challenge.nonce, signature: signature.base64)
            )
            #expect(try await client.request("/v1/restore", method: .post, body: request).status == .ok)
            let replayed = try await client.request("/v1/restore", method: .post, body: request)
            #expect(replayed.status == .unauthorized)
            #expect(replayed.errorCode == .challengeInvalid)
        }
    }

    @Test func aRestoreProofMadeForAnotherRelayIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let challenge = try await client.challenge()
            let signature = try alice.secretKeys().signRestore(
                relayID: Array("another relay's id".utf8),
                nonce: challenge.nonceBytes,
                nickname: alice.nickname
            )
            let response = try await client.request(
                "/v1/restore",
                method: .post,
                body: try jsonBody(
                    RestoreRequest(nickname: alice.nickname, nonce: challenge.nonce, signature: signature.base64)
                )
            )
            #expect(response.errorCode == .wrongSecret)
        }
    }

    @Test func aStolenSessionAloneCannotDeleteTheAccount() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let stolen = try await client.login(alice)
            #expect(try await client.request("/v1/account", method: .delete, session: stolen).status == .notFound)
            let noProof = try await client.request("/v1/account/delete", method: .post, session: stolen)
            #expect(noProof.status == .badRequest)

            let challenge = try await client.challenge()
            let byMallory = try mallory.identity.signDeletion(
                relayID: challenge.relayID,
                nonce: challenge.nonceBytes,
                token: alice.token
            )
            let forged = try await client.request(
                "/v1/account/delete",
                method: .post,
                session: stolen,
                body: try jsonBody(DeletionRequest(nonce: challenge.nonce, signature: byMallory.base64))
            )
            #expect(forged.errorCode == .badProof)
            #expect(try await harness.relay.storage.directory.entry(token: alice.token) != nil)
        }
    }

    @Test func aDeletionStatementCannotBeReplayed() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let session = try await client.login(alice)
            let challenge = try await client.challenge()
            let signature = try alice.identity.signDeletion(
                relayID: challenge.relayID,
                nonce: challenge.nonceBytes,
                token: alice.token
            )
            let statement = try jsonBody(DeletionRequest(nonce: challenge.nonce, signature: signature.base64))
            #expect(
                try await client.request("/v1/account/delete", method: .post, session: session, body: statement)
                    .status == .noContent
            )
            // Registered again under a new name, the old statement must not delete it: the nonce is spent.
            try await client.register(TestIdentities.bob)
            let bobSession = try await client.login(TestIdentities.bob)
            let replayed = try await client.request(
                "/v1/account/delete",
                method: .post,
                session: bobSession,
                body: statement
            )
            #expect(replayed.status != .noContent)
            #expect(try await harness.relay.storage.directory.entry(token: TestIdentities.bob.token) != nil)
        }
    }

    @Test func aRegistrationCannotBeReplayedToAnotherRelay() async throws {
        let first = try await RelayHarness.make()
        let second = try await RelayHarness.make()
        let captured = try await first.routerApplication.test(.router) { client in
            let request = try await client.registrationRequest(for: alice)
            let response = try await client.request("/v1/register", method: .post, body: try jsonBody(request))
            #expect(response.status == .created)
            return request
        }
        try await second.routerApplication.test(.router) { client in
            let replayed = try await client.request("/v1/register", method: .post, body: try jsonBody(captured))
            #expect(replayed.errorCode == .badProof)
            #expect(try await second.relay.storage.directory.entry(token: alice.token) == nil)
        }
    }

    @Test func aRecordSealedWithACheapScryptCostIsRefusedAndNothingStored() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            var request = try await client.registrationRequest(for: alice)
            request.privateRecord.keyDerivation.n = 2
            request.privateRecord.keyDerivation.r = 1
            let response = try await client.request("/v1/register", method: .post, body: try jsonBody(request))
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .invalidKeyDerivation)
            #expect(try await harness.relay.storage.directory.entry(token: alice.token) == nil)
        }
    }

    @Test func aRecordWhoseVerifierIsNoRestoreKeyIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            var request = try await client.registrationRequest(for: alice)
            request.privateRecord.secretVerifier = Array(repeating: 7, count: 31)
            let response = try await client.request("/v1/register", method: .post, body: try jsonBody(request))
            #expect(response.errorCode == .invalidRecord)
        }
    }

    @Test(arguments: [UInt64(1) << 60, (UInt64(1) << 53) - 1, 0, 1_000])
    func anEnvelopeDatedOutsideThePlausibleRangeIsRefused(sentAt: UInt64) async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(TestIdentities.bob)
            let session = try await client.login(alice)
            var envelope = try seal("from the far future", from: alice, to: TestIdentities.bob)
            envelope.header.sentAtMilliseconds = sentAt
            let response = try await client.send(envelope, session: session)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .sentAtOutOfRange)
            #expect(try await harness.relay.storage.mailboxes.depth(of: TestIdentities.bob.token) == 0)
        }
    }

    @Test func anEnvelopeDatedTwoDaysAheadOfTheRelayIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(TestIdentities.bob)
            let session = try await client.login(alice)
            var envelope = try seal("tomorrow's news", from: alice, to: TestIdentities.bob)
            envelope.header.sentAtMilliseconds += 2 * 24 * 3600 * 1000
            #expect(try await client.send(envelope, session: session).errorCode == .sentAtOutOfRange)
        }
    }

    @Test func aChallengeFloodFromOneAddressIsCutOffWithRetryAfter() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.challengeRate = RateLimit(perSecond: 0.001, burst: 5)
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            for _ in 0..<5 {
                #expect(try await client.request("/v1/auth/challenge", method: .post).status == .ok)
            }
            let flooded = try await client.request("/v1/auth/challenge", method: .post)
            #expect(flooded.status == .tooManyRequests)
            #expect(flooded.headers[.retryAfter] != nil)
        }
    }
}

/// Challenges cost the relay no write until they are answered, and only its own unexpired ones are accepted.
@Suite struct StatelessChallengeTests {
    let minter = ChallengeMinter(key: Array(repeating: 7, count: 32), relayID: Array("relay".utf8))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aMintedNonceIsAcceptedUntilItExpires() {
        let nonce = minter.mint(expiresAt: now.addingTimeInterval(60))
        #expect(nonce.count == ChallengeMinter.size)
        #expect(minter.expiry(of: nonce, now: now) != nil)
        #expect(minter.expiry(of: nonce, now: now.addingTimeInterval(61)) == nil)
    }

    @Test func aForgedOrAlteredNonceIsRefused() {
        var nonce = minter.mint(expiresAt: now.addingTimeInterval(60))
        nonce[20] ^= 1  // a later expiry
        #expect(minter.expiry(of: nonce, now: now) == nil)
        let otherRelay = ChallengeMinter(key: minter.key, relayID: Array("another relay".utf8))
        #expect(otherRelay.expiry(of: minter.mint(expiresAt: now.addingTimeInterval(60)), now: now) == nil)
        #expect(minter.expiry(of: Array(repeating: 0, count: ChallengeMinter.size), now: now) == nil)
    }

    @Test func askingForChallengesWritesNothing() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            for _ in 0..<50 {
                let response = try await client.request("/v1/auth/challenge", method: .post)
                #expect(response.status == .ok)
            }
            let stored = try await harness.relay.storage.authentication.sweepExpired(now: .distantFuture)
            #expect(stored == 0)
        }
    }

    @Test func aLoginAnsweredTwiceIsRefusedTheSecondTime() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let alice = TestIdentities.alice
            try await client.register(alice)
            let challenge = try await client.challenge()
            let signature = try alice.identity.signAuthentication(
                relayID: challenge.relayID,
                nonce: challenge.nonceBytes,
                token: alice.token
            )
            let body = try jsonBody(
                SessionRequest(token: alice.token, nonce: challenge.nonce, signature: signature.base64)
            )
            #expect(try await client.request("/v1/auth/session", method: .post, body: body).status == .ok)
            let replayed = try await client.request("/v1/auth/session", method: .post, body: body)
            #expect(replayed.errorCode == .challengeInvalid)
        }
    }
}
