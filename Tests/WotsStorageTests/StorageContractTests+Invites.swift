import Foundation
import Testing
import WotsCore
import WotsStorage

/// Invites: only a hash is stored, a redemption is part of the registration's transaction, and an invite that
/// cannot be used is refused with one code whatever the reason.
extension StorageContractTests {
    private func invite(uses: Int = 1, expiresAt: Date? = nil) -> Invite {
        let hash = TestValues.randomBytes(32)
        return Invite(
            id: hash.prefix(6).map { String(format: "%02x", $0) }.joined(),
            codeHash: hash,
            maximumUses: uses,
            createdAt: TestValues.time(),
            expiresAt: expiresAt
        )
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anInviteAdmitsAsManyRegistrationsAsItHasUsesThenIsUsedUp(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let invite = self.invite(uses: 2)
            try await backend.administration.createInvite(invite)
            let now = TestValues.time()
            for nickname in ["alice", "bob"] {
                try await backend.administration.create(
                    TestValues.entry(nickname),
                    redeemingInviteHash: invite.codeHash,
                    now: now,
                    attestation: []
                )
            }
            await expectStorageError(.inviteInvalid) {
                try await backend.administration.create(
                    TestValues.entry("carol"),
                    redeemingInviteHash: invite.codeHash,
                    now: now,
                    attestation: []
                )
            }
            #expect(try await backend.directory.count() == 2)
            // Each invited registration is in the transparency log, as any registration is.
            #expect(try await backend.log.size() == 2)
            let stored = try #require(try await backend.administration.invites().first)
            #expect(stored.uses == 2)
            #expect(stored.standing(at: now) == .usedUp)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func expiredRevokedAndUnknownInvitesAreRefusedAlike(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let now = TestValues.time()
            let expired = self.invite(expiresAt: now)
            let revoked = self.invite()
            try await backend.administration.createInvite(expired)
            try await backend.administration.createInvite(revoked)
            let revocation = try await backend.administration.revokeInvite(id: revoked.id, at: now)
            #expect(revocation.standing(at: now) == .revoked)
            for hash in [expired.codeHash, revoked.codeHash, TestValues.randomBytes(32)] {
                await expectStorageError(.inviteInvalid) {
                    try await backend.administration.create(
                        TestValues.entry("alice"),
                        redeemingInviteHash: hash,
                        now: now,
                        attestation: []
                    )
                }
            }
            #expect(try await backend.directory.count() == 0)
            await expectStorageError(.notFound) {
                try await backend.administration.revokeInvite(id: "000000000000", at: now)
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRegistrationThatFailsDoesNotSpendAUse(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let invite = self.invite()
            try await backend.administration.createInvite(invite)
            try await backend.directory.create(TestValues.entry("alice"))
            await expectStorageError(.nicknameTaken) {
                try await backend.administration.create(
                    TestValues.entry("alice"),
                    redeemingInviteHash: invite.codeHash,
                    now: TestValues.time(),
                    attestation: []
                )
            }
            #expect(try await backend.administration.invites().first?.uses == 0)
            let bob = TestValues.entry("bob")
            try await backend.administration.create(
                bob,
                redeemingInviteHash: invite.codeHash,
                now: TestValues.time(),
                attestation: []
            )
            try await backend.administration.undoCreate(token: bob.token, restoringInviteHash: invite.codeHash)
            #expect(try await backend.directory.entry(token: bob.token) == nil)
            #expect(try await backend.administration.invites().first?.uses == 0)
            try await backend.administration.create(
                TestValues.entry("bob"),
                redeemingInviteHash: invite.codeHash,
                now: TestValues.time(),
                attestation: []
            )
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func concurrentRegistrationsCannotOveruseAOneUseInvite(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let invite = self.invite()
            try await backend.administration.createInvite(invite)
            let administration = backend.administration
            let outcomes = await withTaskGroup(of: ErrorCode?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do {
                            try await administration.create(
                                TestValues.entry("racer\(index)"),
                                redeemingInviteHash: invite.codeHash,
                                now: TestValues.time(),
                                attestation: []
                            )
                            return nil
                        } catch let error as WotsError {
                            return error.code
                        } catch {
                            return .internalError
                        }
                    }
                }
                return await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.filter { $0 == .inviteInvalid }.count == 7)
            #expect(try await backend.directory.count() == 1)
            #expect(try await backend.administration.invites().first?.uses == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func invitesAreListedNewestFirstAndRevokingTwiceKeepsTheFirstTime(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            var older = self.invite()
            older.createdAt = TestValues.time(1_700_000_000_000)
            let newer = self.invite(uses: 3, expiresAt: TestValues.time(1_800_000_000_000))
            try await backend.administration.createInvite(older)
            try await backend.administration.createInvite(newer)
            let listed = try await backend.administration.invites()
            #expect(listed.map(\.id) == [newer.id, older.id])
            #expect(listed.first == newer)
            try await backend.administration.revokeInvite(id: older.id, at: TestValues.time(1_700_000_001_000))
            let again = try await backend.administration.revokeInvite(
                id: older.id,
                at: TestValues.time(1_700_000_002_000)
            )
            #expect(again.revokedAt == TestValues.time(1_700_000_001_000))
        }
    }
}
