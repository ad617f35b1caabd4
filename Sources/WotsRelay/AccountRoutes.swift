import CoreMetrics
import Foundation
import Hummingbird
import WotsCore
import WotsCrypto
import WotsStorage

/// Restoring, reading, rotating and deleting an account.
struct AccountRoutes: Sendable {
    let storage: RelayStorage
    let accounts: AccountCache
    let configuration: RelayConfiguration
    let bus: EventBus
    let restoreLimiter: TokenBucketLimiter

    func registerPublic(on router: Router<RelayRequestContext>) {
        router.post("/v1/restore/parameters") { request, _ in
            let body = try await JSONBody.decode(RestoreParametersRequest.self, from: request, limit: 4_096)
            let (_, record) = try await self.account(nickname: body.nickname)
            return try JSONBody.response(RestoreParametersResponse(keyDerivation: record.keyDerivation))
        }
        router.post("/v1/restore") { request, _ in
            let body = try await JSONBody.decode(RestoreRequest.self, from: request, limit: 4_096)
            if let wait = self.restoreLimiter.acquire(body.nickname.value) {
                throw WotsError(
                    .rateLimited,
                    "too many restore attempts for \"\(body.nickname)\"; retry in \(wait) s",
                    retryAfterSeconds: wait
                )
            }
            let (entry, record) = try await self.account(nickname: body.nickname)
            guard let key = Data(base64Encoded: body.authenticationKey).map(Array.init),
                record.verifies(authenticationKey: key)
            else {
                throw WotsError(.wrongSecret, "the secret is wrong for \"\(body.nickname)\"")
            }
            return try JSONBody.response(AccountResponse(entry: entry, privateRecord: record))
        }
    }

    func registerAuthenticated(on group: RouterGroup<RelayRequestContext>) {
        group.get("/private") { _, context in
            let token = try context.requireToken()
            guard let entry = try await self.storage.directory.entry(token: token),
                let record = try await self.storage.privateRecords.record(for: token)
            else { throw WotsError(.unknownToken, "token \(token) has no account") }
            return try JSONBody.response(AccountResponse(entry: entry, privateRecord: record))
        }
        group.post("/keys/rotate") { request, context in
            let token = try context.requireToken()
            let body = try await JSONBody.decode(
                RotationRequest.self,
                from: request,
                limit: self.configuration.maximumRequestSize
            )
            return try JSONBody.response(try await self.rotate(token: token, body))
        }
        group.delete("/account") { _, context in
            let token = try context.requireToken()
            let entry = try await self.storage.accounts.deleteAccount(token: token)
            self.accounts.accountChanged(token)
            self.bus.publish(DirectoryChange(kind: .deleted, nickname: entry.nickname))
            return Response(status: .noContent)
        }
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
            record: body.privateRecord
        )
        self.accounts.accountChanged(token)
        self.bus.publish(DirectoryChange(kind: .rotated, nickname: updated.nickname))
        return updated
    }
}
