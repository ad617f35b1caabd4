import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsTesting

/// A stream is worth no more than the session that opened it: a captured session read mail for an hour at most
/// (SECURITY.md), and a key rotation ends every session of the account, so neither may leave a socket open.
@Suite struct StreamSessionLifetimeTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func aStreamStaysOpenWhileItsSessionLivesAndClosesWhenItExpires() async throws {
        let clock = ManualClock()
        var configuration = RelayHarness.testConfiguration
        configuration.sessionLifetime = .seconds(600)
        try await StreamRelay.run(configuration: configuration, clock: clock) { relay in
            let socket = try await relay.connect(as: bob)
            let early = await socket.next(advancing: clock, by: .seconds(10), steps: 50) { $0 != .timedOut }
            #expect(early == .timedOut, "the stream closed before its session ended")

            let late = await socket.next(advancing: clock, by: .seconds(10), steps: 100) { $0 != .timedOut }
            guard case .error(nil, nil, let code, _) = late.frame else {
                Issue.record("no error frame after the session expired: \(late)")
                return
            }
            #expect(code == .invalidSession)
            #expect(await socket.next() == .closed)
        }
    }

    @Test func rotatingTheKeysClosesStreamsOpenedWithTheOldSessions() async throws {
        try await StreamRelay.run { relay in
            let thief = try await relay.connect(as: bob)
            let bystander = try await relay.connect(as: alice)
            let rotation = try Self.rotation(of: bob, to: TestIdentities.carol.identity)
            let response = try await relay.client.request(
                "/v1/keys/rotate",
                method: .post,
                session: relay.bobSession,
                body: try jsonBody(rotation)
            )
            #expect(response.status == .ok)

            guard case .error(nil, nil, let code, _) = await thief.next().frame else {
                Issue.record("the stream opened with the old session got no error frame")
                return
            }
            #expect(code == .invalidSession)
            #expect(await thief.next() == .closed)
            #expect(await bystander.next(timeout: .milliseconds(300)) == .timedOut, "another account's stream stays")
            await bystander.close()
        }
    }

    static func rotation(of user: TestIdentity, to newIdentity: IdentityKeys) throws -> RotationRequest {
        let proof = try RotationProof.sign(token: user.token, oldIdentity: user.identity, newIdentity: newIdentity)
        let (parameters, keys) = try TestSecretKeys.derived(from: user.secret)
        return RotationRequest(
            publicKeys: newIdentity.publicKeys,
            privateRecord: try PrivateRecord.seal(
                identity: newIdentity,
                token: user.token,
                keys: keys,
                parameters: parameters
            ),
            oldKeySignature: proof.oldKeySignature.base64,
            newKeySignature: proof.newKeySignature.base64
        )
    }
}
