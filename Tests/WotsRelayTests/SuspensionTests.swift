import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsStorage
import WotsTesting

@testable import WotsRelay

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

    /// Bob's stream looks his session up, and the answer (read before the suspension committed) arrives only after
    /// the relay heard of the suspension and found no socket of his to close: the stream, registered after that,
    /// sees the change was heard meanwhile, reads his standing and closes.
    @Test func aStreamWhoseSessionWasReadBeforeASuspensionItMissedIsClosed() async throws {
        var storage = RelayStorage.inMemory()
        let authentication = StaleSessions(base: storage.authentication)
        storage.authentication = authentication
        try await StreamRelay.run(storage: storage) { relay in
            authentication.gate.hold()
            let connecting = Task { try await TestSocket.connect(port: relay.port, headerSession: relay.bobSession) }
            await authentication.gate.held()
            let heard = relay.relay.hub.accountChangesHeard
            try await relay.relay.storage.administration.suspend(token: bob.token, at: Date())
            self.announce(bob.token, on: relay)
            let deadline = ContinuousClock.now + .seconds(30)
            while relay.relay.hub.accountChangesHeard == heard, ContinuousClock.now < deadline { await Task.yield() }
            #expect(relay.relay.hub.accountChangesHeard > heard, "the relay never heard of the suspension")
            authentication.gate.release()

            let socket = try await connecting.value
            #expect(await socket.next() == .frame(.ready(ref: nil, token: bob.token)))
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

/// Authentication whose session lookups, while the gate is held, read the stored session at once and answer only
/// once released: an answer read before a change that commits meanwhile.
final class StaleSessions: AuthenticationRepository {
    let base: any AuthenticationRepository
    let gate = Gate()

    init(base: any AuthenticationRepository) { self.base = base }

    func session(hash: [UInt8], now: Date) async throws -> ActiveSession? {
        let session = try await self.base.session(hash: hash, now: now)
        await self.gate.pass()
        return session
    }

    func relayID(storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        try await self.base.relayID(storingIfAbsent: candidate)
    }
    func relaySecret(named name: String, storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        try await self.base.relaySecret(named: name, storingIfAbsent: candidate)
    }
    func useChallenge(_ nonce: [UInt8], expiresAt: Date) async throws -> Bool {
        try await self.base.useChallenge(nonce, expiresAt: expiresAt)
    }
    func storeSession(hash: [UInt8], token: Token, expiresAt: Date) async throws {
        try await self.base.storeSession(hash: hash, token: token, expiresAt: expiresAt)
    }
    func deleteSessions(of token: Token) async throws { try await self.base.deleteSessions(of: token) }
    func sweepExpired(now: Date) async throws -> Int { try await self.base.sweepExpired(now: now) }
}
