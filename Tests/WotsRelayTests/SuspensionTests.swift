import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

/// A suspension made by another process (`wots-relay admin`) reaches a running relay as an `AccountChanged` on its
/// bus (PostgreSQL `NOTIFY`, or the SQLite change log): the account's streams close, its sessions stop working and
/// it cannot log in until unsuspended.
@Suite struct SuspensionTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    /// What the PostgreSQL listener or the SQLite change feed publishes after another process changed `token`.
    private func announce(_ token: Token, on relay: StreamRelay) {
        relay.relay.bus.publish(AccountChanged(token: token, isFromAnotherProcess: true))
    }

    private func loginAttempt(_ user: TestIdentity, client: some TestClientProtocol) async throws -> TestResponse {
        let challenge = try await client.challenge()
        let signature = try user.identity.signAuthentication(
            relayID: challenge.relayID,
            nonce: challenge.nonceBytes,
            token: user.token
        )
        return try await client.request(
            "/v1/auth/session",
            method: .post,
            body: try jsonBody(SessionRequest(token: user.token, nonce: challenge.nonce, signature: signature.base64))
        )
    }

    @Test func suspendingClosesTheAccountsStreamsAndRefusesItsLoginsUntilUnsuspended() async throws {
        try await StreamRelay.run { relay in
            let bobSocket = try await relay.connect(as: bob)
            let aliceSocket = try await relay.connect(as: alice)
            try await relay.relay.storage.administration.suspend(token: bob.token, at: Date())
            self.announce(bob.token, on: relay)

            guard case .error(nil, nil, let code, _) = await bobSocket.next().frame else {
                Issue.record("no error frame before the close")
                return
            }
            #expect(code == .accountSuspended)
            #expect(await bobSocket.next() == .closed)
            #expect(await aliceSocket.next(timeout: .milliseconds(300)) == .timedOut, "alice's stream stays open")

            let oldSession = try await relay.client.request("/v1/messages", method: .get, session: relay.bobSession)
            #expect(oldSession.errorCode == .invalidSession)
            let login = try await self.loginAttempt(bob, client: relay.client)
            #expect(login.status == .forbidden)
            #expect(login.errorCode == .accountSuspended)
            let mail = try seal("still queued", from: alice, to: bob)
            #expect(try await relay.client.send(mail, session: relay.aliceSession).status == .accepted)

            try await relay.relay.storage.administration.unsuspend(token: bob.token)
            self.announce(bob.token, on: relay)
            let session = try await relay.client.login(bob)
            #expect(try await relay.client.mailbox(session: session).map(\.envelope) == [mail])
            await aliceSocket.close()
        }
    }

    @Test func deletingByTheOperatorClosesTheStreamWithUnknownToken() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: bob)
            try await relay.relay.storage.accounts.deleteAccount(token: bob.token)
            self.announce(bob.token, on: relay)
            #expect(await socket.next().frame?.errorCode == .unknownToken)
            #expect(await socket.next() == .closed)
        }
    }

    /// The suspension committed (by another process, say) before bob's stream was registered, and its notification
    /// has not come: the session is still in memory, so the stream opens, and is closed at once for the suspension.
    @Test func aStreamOpenedAfterAnUnannouncedSuspensionIsClosed() async throws {
        try await StreamRelay.run { relay in
            let mailbox = try await relay.client.request("/v1/messages", method: .get, session: relay.bobSession)
            #expect(mailbox.status == .ok, "bob's session is now in memory")
            try await relay.relay.storage.administration.suspend(token: bob.token, at: Date())

            let socket = try await relay.connect(as: bob)
            #expect(await socket.next().frame?.errorCode == .accountSuspended)
            #expect(await socket.next() == .closed)
        }
    }

    @Test func aChangeThatLeavesTheAccountInGoodStandingKeepsItsStreamOpen() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: bob)
            self.announce(bob.token, on: relay)
            relay.relay.bus.publish(AccountChanged(token: nil, isFromAnotherProcess: true))
            let mail = try seal("after the change", from: alice, to: bob)
            _ = try await relay.client.send(mail, session: relay.aliceSession)
            #expect(await socket.next().frame?.deliveredMessage?.envelope == mail)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut, "no error frame, no close")
            await socket.close()
        }
    }
}

extension RelayFrame {
    fileprivate var errorCode: ErrorCode? {
        if case .error(_, _, let code, _) = self { return code }
        return nil
    }
}
