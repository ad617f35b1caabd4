import CoreMetrics
import Foundation
import Hummingbird
import Logging
import WotsCore
import WotsCrypto
import WotsStorage

/// `POST /v1/register`: checks the request and saves it through the save coordinator.
struct RegistrationRoutes: Sendable {
    let storage: RelayStorage
    let configuration: RelayConfiguration
    let bus: EventBus
    let metrics: RelayMetrics
    let limiter: TokenBucketLimiter
    let logger: Logger
    /// Signed by every registration proof.
    let relayID: [UInt8]

    func register(on router: Router<RelayRequestContext>) {
        router.post("/v1/register") { request, context in
            try await self.register(request, context: context)
        }
    }

    private func register(_ request: Request, context: RelayRequestContext) async throws -> Response {
        if let wait = self.limiter.acquire(context.remoteAddress) {
            throw WotsError(
                .rateLimited,
                "too many registrations from this address; retry in \(wait) s",
                retryAfterSeconds: wait
            )
        }
        if self.configuration.registration == .closed { throw Self.closed }
        let body = try await JSONBody.decode(
            RegistrationRequest.self,
            from: request,
            limit: self.configuration.maximumRequestSize
        )
        let entry = try Self.validate(body, relayID: self.relayID)
        switch self.configuration.registration {
        case .open:
            let publicHalf = DirectoryEntryParticipant(
                repository: self.storage.directory,
                attestation: Self.attestation(of: body)
            )
            try await self.save(entry, body, publicHalf: publicHalf)
        case .invite:
            guard let invite = body.invite, !invite.isEmpty else {
                throw WotsError(.inviteInvalid, "this relay registers by invitation: send the operator's invite code")
            }
            let publicHalf = InvitedEntryParticipant(
                repository: self.storage.administration,
                codeHash: InviteCode.hash(of: invite),
                attestation: Self.attestation(of: body)
            )
            try await self.save(entry, body, publicHalf: publicHalf)
        case .closed:
            throw Self.closed
        }
        self.metrics.registrations.increment()
        context.logger.info(
            "registered",
            metadata: ["nickname": "\(entry.nickname)", "fingerprint": "\(entry.fingerprint.hex)"]
        )
        self.bus.publish(DirectoryChange(kind: .registered, nickname: entry.nickname))
        return try JSONBody.response(entry, status: .created)
    }

    /// The registration's proof of possession, logged with the entry.
    static func attestation(of body: RegistrationRequest) -> [UInt8] {
        Data(base64Encoded: body.proof).map(Array.init) ?? []
    }

    static let closed = WotsError(.registrationClosed, "this relay takes no new registrations")

    /// Saves both halves through the save coordinator: all of the registration, or none of it.
    private func save<PublicHalf: SaveParticipant>(
        _ entry: DirectoryEntry,
        _ body: RegistrationRequest,
        publicHalf: PublicHalf
    ) async throws where PublicHalf.Item == DirectoryEntry {
        let coordinator = SaveCoordinator(
            publicHalf: publicHalf,
            privateHalf: PrivateRecordParticipant(repository: self.storage.privateRecords),
            bus: self.bus,
            onUndoFailure: { [logger] problem in
                logger.error("registration left half-written", metadata: ["problem": "\(problem)"])
            }
        )
        try await coordinator.save(
            token: entry.token,
            nickname: entry.nickname,
            publicItem: entry,
            privateItem: body.privateRecord
        )
    }

    /// Everything that can be checked before touching storage: keys, proof of possession, record ownership.
    static func validate(_ body: RegistrationRequest, relayID: [UInt8]) throws -> DirectoryEntry {
        // The wire reads names leniently (old accounts); a new one must follow every rule.
        _ = try Nickname(body.nickname.value)
        do {
            try body.publicKeys.validate()
        } catch let error as WotsError {
            throw WotsError(.invalidKey, error.reason)
        }
        guard body.privateRecord.token == body.token else {
            throw WotsError(.recordTokenMismatch, "privateRecord.token is not the registration's token")
        }
        guard let proof = Data(base64Encoded: body.proof).map(Array.init),
            RegistrationProof.verify(
                signature: proof,
                relayID: relayID,
                token: body.token,
                nickname: body.nickname,
                publicKeys: body.publicKeys
            )
        else {
            throw WotsError(
                .badProof,
                "the proof of possession does not verify with the new signing key for this relay's id"
            )
        }
        try Self.validate(body.privateRecord)
        return DirectoryEntry(
            token: body.token,
            nickname: body.nickname,
            publicKeys: body.publicKeys,
            fingerprint: body.publicKeys.fingerprint,
            registeredAt: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        )
    }

    /// What the relay can check of a sealed record it cannot open: scrypt parameters within the bounds no client goes
    /// below, and a secret verifier that is an Ed25519 public key.
    static func validate(_ record: PrivateRecord) throws {
        try record.keyDerivation.checkBounds()
        guard (try? Ed25519PublicKey(rawRepresentation: record.secretVerifier)) != nil else {
            throw WotsError(.invalidRecord, "privateRecord.secretVerifier must be a 32-byte Ed25519 public key")
        }
    }
}
