import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

/// `--registration open|invite|closed`: who may register, and what an invite code is worth.
@Suite struct RegistrationModeTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    private func harness(_ mode: RegistrationMode) async throws -> RelayHarness {
        var configuration = RelayHarness.testConfiguration
        configuration.registration = mode
        return try await RelayHarness.make(configuration: configuration)
    }

    private func invite(
        in harness: RelayHarness,
        uses: Int = 1,
        expiresAt: Date? = nil
    ) async throws -> InviteCode {
        let code = InviteCode()
        try await harness.relay.storage.administration.createInvite(
            code.invite(uses: uses, createdAt: Date(), expiresAt: expiresAt)
        )
        return code
    }

    private func register(
        _ user: TestIdentity,
        invite: String?,
        client: some TestClientProtocol
    ) async throws -> TestResponse {
        var request = try await client.registrationRequest(for: user)
        request.invite = invite
        return try await client.request("/v1/register", method: .post, body: try jsonBody(request))
    }

    @Test func aClosedRelayRefusesEveryRegistration() async throws {
        let harness = try await self.harness(.closed)
        try await harness.routerApplication.test(.router) { client in
            let response = try await self.register(alice, invite: nil, client: client)
            #expect(response.status == .forbidden)
            #expect(response.errorCode == .registrationClosed)
        }
        #expect(try await harness.relay.storage.directory.count() == 0)
    }

    @Test func anInviteRelayRefusesARegistrationWithoutAValidCode() async throws {
        let harness = try await self.harness(.invite)
        try await harness.routerApplication.test(.router) { client in
            for invite in [nil, "", InviteCode().text] {
                let response = try await self.register(alice, invite: invite, client: client)
                #expect(response.status == .forbidden)
                #expect(response.errorCode == .inviteInvalid)
            }
        }
        #expect(try await harness.relay.storage.directory.count() == 0)
        #expect(try await harness.relay.storage.privateRecords.record(for: alice.token) == nil)
    }

    @Test func aOneUseCodeAdmitsOneRegistrationAndAnExpiredOneNone() async throws {
        let harness = try await self.harness(.invite)
        let code = try await self.invite(in: harness)
        let expired = try await self.invite(in: harness, expiresAt: Date(timeIntervalSinceNow: -1))
        try await harness.routerApplication.test(.router) { client in
            let first = try await self.register(alice, invite: " \(code.text.uppercased()) ", client: client)
            #expect(first.status == .created, "codes are read case-insensitively, spaces around ignored")
            let again = try await self.register(bob, invite: code.text, client: client)
            #expect(again.errorCode == .inviteInvalid)
            let late = try await self.register(bob, invite: expired.text, client: client)
            #expect(late.errorCode == .inviteInvalid)
            #expect(late.errorMessage == again.errorMessage, "used up and expired read alike")
        }
        #expect(try await harness.relay.storage.privateRecords.record(for: alice.token) != nil)
        #expect(try await harness.relay.storage.directory.entry(token: bob.token) == nil)
    }

    @Test func aRefusedRegistrationSpendsNoUse() async throws {
        let harness = try await self.harness(.invite)
        let code = try await self.invite(in: harness)
        try await harness.relay.storage.directory.create(
            DirectoryEntry(
                token: Token.random(),
                nickname: alice.nickname,
                publicKeys: bob.publicKeys,
                fingerprint: bob.fingerprint,
                registeredAt: Date()
            )
        )
        try await harness.routerApplication.test(.router) { client in
            let taken = try await self.register(alice, invite: code.text, client: client)
            #expect(taken.errorCode == .nicknameTaken)
            let bobs = try await self.register(bob, invite: code.text, client: client)
            #expect(bobs.status == .created, "the refused registration left the one use")
        }
    }

    @Test func anOpenRelayIgnoresAnInviteField() async throws {
        let harness = try await self.harness(.open)
        try await harness.routerApplication.test(.router) { client in
            let response = try await self.register(alice, invite: "whatever", client: client)
            #expect(response.status == .created)
        }
    }
}
