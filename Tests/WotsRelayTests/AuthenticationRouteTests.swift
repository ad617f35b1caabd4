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

@Suite struct AuthenticationRouteTests {
    let alice = TestIdentities.alice

    func signedSession(
        _ client: some TestClientProtocol,
        signer: TestIdentity,
        claiming token: Token,
        relayID: [UInt8]? = nil
    ) async throws -> (ChallengeResponse, SessionRequest) {
        let challenge = try await client.request("/v1/auth/challenge", method: .post).decode(ChallengeResponse.self)
        let signature = try signer.identity.signAuthentication(
            relayID: relayID ?? Array(Data(base64Encoded: challenge.relayID)!),
            nonce: Array(Data(base64Encoded: challenge.nonce)!),
            token: token
        )
        return (challenge, SessionRequest(token: token, nonce: challenge.nonce, signature: signature.base64))
    }

    @Test func aSignedChallengeOpensASessionThatReadsTheMailbox() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let session = try await client.login(alice)
            #expect(try await client.mailbox(session: session).isEmpty)
        }
    }

    @Test func aNonceIsSingleUse() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let (_, request) = try await self.signedSession(client, signer: alice, claiming: alice.token)
            let first = try await client.request("/v1/auth/session", method: .post, body: try jsonBody(request))
            #expect(first.status == .ok)
            let replay = try await client.request("/v1/auth/session", method: .post, body: try jsonBody(request))
            #expect(replay.status == .unauthorized)
            #expect(replay.errorCode == .challengeInvalid)
        }
    }

    @Test func anExpiredNonceIsRefused() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.challengeLifetime = .milliseconds(1)
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let (_, request) = try await self.signedSession(client, signer: alice, claiming: alice.token)
            try await Task.sleep(for: .milliseconds(20))
            let response = try await client.request("/v1/auth/session", method: .post, body: try jsonBody(request))
            #expect(response.errorCode == .challengeInvalid)
        }
    }

    @Test func anotherUsersSignatureIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let (_, forged) = try await self.signedSession(
                client,
                signer: TestIdentities.mallory,
                claiming: alice.token
            )
            let response = try await client.request("/v1/auth/session", method: .post, body: try jsonBody(forged))
            #expect(response.status == .unauthorized)
            #expect(response.errorCode == .badSignature)
        }
    }

    @Test func aLoginSignedForAnotherRelayIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let (_, request) = try await self.signedSession(
                client,
                signer: alice,
                claiming: alice.token,
                relayID: Array(repeating: 7, count: 16)
            )
            let response = try await client.request("/v1/auth/session", method: .post, body: try jsonBody(request))
            #expect(response.errorCode == .badSignature)
        }
    }

    @Test func anUnknownTokenIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let (_, request) = try await self.signedSession(client, signer: alice, claiming: alice.token)
            let response = try await client.request("/v1/auth/session", method: .post, body: try jsonBody(request))
            #expect(response.status == .unauthorized)
            #expect(response.errorCode == .unknownToken)
        }
    }

    @Test(arguments: ["", "Bearer nonsense", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
    func protectedRoutesRefuseMissingOrUnknownSessions(header: String) async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/messages",
                method: .get,
                headers: header.isEmpty ? [:] : [.authorization: header]
            ) { $0 }
            #expect(response.status == .unauthorized)
        }
    }

    @Test func sessionsAreStoredOnlyAsHashes() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let session = try await client.login(alice)
            let secret = Array(
                Data(
                    base64Encoded: session.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
                        of: "_",
                        with: "/"
                    ) + "="
                )!
            )
            #expect(try await harness.relay.storage.authentication.session(hash: secret, now: Date()) == nil)
            #expect(
                try await harness.relay.storage.authentication.session(hash: SHA256.hash(secret), now: Date())?.token
                    == alice.token
            )
        }
    }
}
