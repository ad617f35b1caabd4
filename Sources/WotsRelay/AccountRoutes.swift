import CoreMetrics
import Foundation
import Hummingbird
import WotsCore
import WotsCrypto
import WotsStorage
import WotsTransparency

/// Restoring, rotating and deleting an account.
struct AccountRoutes: Sendable {
    let storage: RelayStorage
    let accounts: AccountCache
    let configuration: RelayConfiguration
    let bus: EventBus
    let authenticator: Authenticator
    /// Restore attempts per address and nickname.
    let restoreLimiter: TokenBucketLimiter
    /// Restore attempts per nickname from every address: a ceiling high enough that strangers cannot lock the owner
    /// out.
    let restoreCeiling: TokenBucketLimiter

    func registerPublic(on router: Router<RelayRequestContext>) {
        router.post("/v1/restore/parameters") { request, _ in
            let body = try await JSONBody.decode(RestoreParametersRequest.self, from: request, limit: 4_096)
            let (_, record) = try await self.account(nickname: body.nickname)
            return try JSONBody.response(RestoreParametersResponse(keyDerivation: record.keyDerivation))
        }
        router.post("/v1/restore") { request, context in
            let body = try await JSONBody.decode(RestoreRequest.self, from: request, limit: 4_096)
            return try JSONBody.response(try await self.restore(body, from: context.remoteAddress))
        }
    }

    func registerAuthenticated(on group: RouterGroup<RelayRequestContext>) {
        group.post("/keys/rotate") { request, context in
            let token = try context.requireToken()
            let body = try await JSONBody.decode(
                RotationRequest.self,
                from: request,
                limit: self.configuration.maximumRequestSize
            )
            return try JSONBody.response(try await self.rotate(token: token, body))
        }
        group.post("/account/delete") { request, context in
            let token = try context.requireToken()
            let body = try await JSONBody.decode(DeletionRequest.self, from: request, limit: 4_096)
            try await self.delete(token: token, body)
            return Response(status: .noContent)
        }
    }

    /// Checks a restore proof and answers with the sealed record. The nonce is consumed before the signature is
    /// checked, so each guess costs the guesser a challenge and a scrypt run.
    private func restore(_ body: RestoreRequest, from address: String) async throws -> AccountResponse {
        let nickname = body.nickname.value
        for (limiter, key, who) in [
            (self.restoreLimiter, "\(address) \(nickname)", "from this address"),
            (self.restoreCeiling, nickname, "from everywhere"),
        ] {
            if let wait = limiter.acquire(key) {
                throw WotsError(
                    .rateLimited,
                    "too many restore attempts for \"\(body.nickname)\" \(who); retry in \(wait) s",
                    retryAfterSeconds: wait
                )
            }
        }
        let answer = try self.authenticator.answer(nonce: body.nonce, signature: body.signature)
        // Spent before the check: every guess at the secret costs the guesser a challenge and a scrypt run.
        try await self.authenticator.spend(answer)
        let (entry, record) = try await self.account(nickname: body.nickname)
        guard
            RestoreProof.verify(
                signature: answer.signature,
                secretVerifier: record.secretVerifier,
                relayID: self.authenticator.relayID,
                nonce: answer.nonce,
                nickname: entry.nickname
            )
        else {
            throw WotsError(.wrongSecret, "the secret is wrong for \"\(body.nickname)\"")
        }
        return AccountResponse(entry: entry, privateRecord: record)
    }

    /// Deletes the session's account once its signing key signed a fresh deletion statement.
    private func delete(token: Token, _ body: DeletionRequest) async throws {
        let answer = try self.authenticator.answer(nonce: body.nonce, signature: body.signature)
        guard let current = try await self.storage.directory.entry(token: token) else {
            throw WotsError(.unknownToken, "token \(token) has no account")
        }
        guard
            current.publicKeys.verifyDeletion(
                signature: answer.signature,
                relayID: self.authenticator.relayID,
                nonce: answer.nonce,
                token: token
            )
        else {
            throw WotsError(.badProof, "deleting an account needs a fresh deletion statement signed by its signing key")
        }
        try await self.authenticator.spend(answer)
        let entry = try await self.storage.accounts.deleteAccount(token: token)
        // After the deletion, not in its transaction: the account is gone either way, and if this fails its blobs
        // still go at their expiry.
        _ = try? await self.storage.blobs.forgetAccount(token)
        self.accounts.accountChanged(token)
        self.bus.publish(DirectoryChange(kind: .deleted, nickname: entry.nickname))
    }

    private func account(nickname: Nickname) async throws -> (DirectoryEntry, PrivateRecord) {
        guard let entry = try await self.storage.directory.entry(nickname: nickname),
            let record = try await self.storage.privateRecords.record(for: entry.token)
        else { throw WotsError(.unknownNickname, "no account is called \"\(nickname)\"") }
        return (entry, record)
    }

    private func rotate(token: Token, _ body: RotationRequest) async throws -> DirectoryEntry {
        guard let current = try await self.storage.directory.entry(token: token) else {
            throw WotsError(.unknownToken, "token \(token) has no account")
        }
        do {
            try body.publicKeys.validate()
        } catch let error as WotsError {
            throw WotsError(.invalidKey, error.reason)
        }
        guard body.privateRecord.token == token else {
            throw WotsError(.recordTokenMismatch, "privateRecord.token is not the session's token")
        }
        try RegistrationRoutes.validate(body.privateRecord)
        guard let old = Data(base64Encoded: body.oldKeySignature).map(Array.init),
            let new = Data(base64Encoded: body.newKeySignature).map(Array.init),
            RotationProof(oldKeySignature: old, newKeySignature: new).verify(
                token: token,
                oldKeys: current.publicKeys,
                newKeys: body.publicKeys
            )
        else {
            throw WotsError(
                .badProof,
                "the rotation must be signed by both the current and the new signing key"
            )
        }
        let updated = try await self.storage.accounts.rotateKeys(
            token: token,
            publicKeys: body.publicKeys,
            fingerprint: body.publicKeys.fingerprint,
            record: body.privateRecord,
            attestation: DirectoryLogEvent.rotationAttestation(oldKeySignature: old, newKeySignature: new)
        )
        self.accounts.accountChanged(token)
        self.bus.publish(DirectoryChange(kind: .rotated, nickname: updated.nickname))
        return updated
    }
}
