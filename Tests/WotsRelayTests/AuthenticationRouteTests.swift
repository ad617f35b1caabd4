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

    /// A session has one spelling: another that decodes to the same 32 bytes (standard base64's `+` and `/`, padding,
    /// the last digit's two unused bits set, spaces) is refused as malformed, not taken as the session it aliases.
    @Test func aSessionIsAcceptedOnlyInTheSpellingTheRelayGaveIt() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            var session = try await client.login(alice)
            while !session.contains(where: { $0 == "-" || $0 == "_" }) { session = try await client.login(alice) }
            let lastDigit = try #require(session.last)
            let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let lastValue = try #require(digits.firstIndex(of: lastDigit))
            let aliases = [
                session.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"),
                session + "=",
                String(session.dropLast()) + String(digits[lastValue | 1]),
                String(session.dropLast()) + String(digits[lastValue | 2]),
                session.prefix(20) + " " + session.dropFirst(21),
            ]
            for alias in aliases {
                let refused = try await client.request("/v1/messages", method: .get, session: alias)
                #expect(refused.status == .unauthorized, "\(alias)")
                #expect(refused.errorCode == .invalidSession, "\(alias)")
            }
            #expect(try await client.request("/v1/messages", method: .get, session: session).status == .ok)
        }
    }

    /// RFC 9110: the scheme's case does not matter and blanks around the credentials are not part of them.
    @Test func theBearerSchemeIsReadInAnyCaseWithBlanksAroundTheSession() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let session = try await client.login(alice)
            for header in ["bearer \(session)", "BEARER  \(session)", "BeArEr \t\(session) \t"] {
                let response = try await client.execute(
                    uri: "/v1/messages",
                    method: .get,
                    headers: [.authorization: header]
                ) { $0 }
                #expect(response.status == .ok, "\(header)")
            }
            for header in ["Bearer\t\(session)", "Bearer\(session)", "Basic \(session)", "bearer"] {
                let response = try await client.execute(
                    uri: "/v1/messages",
                    method: .get,
                    headers: [.authorization: header]
                ) { $0 }
                #expect(response.status == .unauthorized, "\(header)")
                #expect(response.errorCode == .unauthenticated, "\(header)")
            }
        }
    }
}
