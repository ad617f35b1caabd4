import Foundation
import WotsCore
import WotsCrypto
import WotsStorage

/// Challenge–response login and bearer sessions, backed by the shared authentication repository so that every
/// relay process on one database accepts the same sessions and consumes each nonce once.
struct Authenticator: Sendable {
    static let nonceSize = 32
    static let sessionSize = 32

    let relayID: [UInt8]
    let storage: RelayStorage
    let accounts: AccountCache
    let configuration: RelayConfiguration

    /// Issues a single-use nonce.
    func challenge(now: Date = Date()) async throws -> ChallengeResponse {
        let nonce = SecureRandom.bytes(Self.nonceSize)
        let expiresAt = now.addingTimeInterval(self.configuration.challengeLifetime.seconds)
        try await self.storage.authentication.storeChallenge(nonce, expiresAt: expiresAt)
        return ChallengeResponse(nonce: nonce.base64, relayID: self.relayID.base64, expiresAt: expiresAt)
    }

    /// Checks a signed challenge and opens a session. The nonce is consumed first, so a refused attempt burns it.
    func openSession(_ request: SessionRequest, now: Date = Date()) async throws -> SessionResponse {
        let (nonce, signature) = try await self.consume(nonce: request.nonce, signature: request.signature, now: now)
        guard let entry = try await self.storage.directory.entry(token: request.token) else {
            throw WotsError(.unknownToken, "token \(request.token) is not registered")
        }
        let signingKey = try entry.publicKeys.signingKey()
        guard
            signingKey.verifyAuthentication(
                signature: signature,
                relayID: self.relayID,
                nonce: nonce,
                token: request.token
            )
        else {
            throw WotsError(
                .badSignature,
                "the challenge signature does not verify with the token's key"
            )
        }
        let secret = SecureRandom.bytes(Self.sessionSize)
        let expiresAt = now.addingTimeInterval(self.configuration.sessionLifetime.seconds)
        try await self.storage.authentication.storeSession(
            hash: SHA256.hash(secret),
            token: request.token,
            expiresAt: expiresAt
        )
        return SessionResponse(session: Self.spell(secret), expiresAt: expiresAt)
    }

    /// Decodes a challenge answer and consumes its nonce: whatever the answer proves, it is checked once.
    /// - Returns: the nonce and the signature bytes.
    /// - Throws: `invalid_nonce`, `invalid_signature` for malformed fields; `challenge_invalid` when the nonce is
    ///   unknown, used or expired.
    func consume(nonce: String, signature: String, now: Date = Date()) async throws -> ([UInt8], [UInt8]) {
        guard let nonceBytes = Data(base64Encoded: nonce).map(Array.init), nonceBytes.count == Self.nonceSize else {
            throw WotsError(.invalidNonce, "nonce is not the base64 of a 32-byte challenge")
        }
        guard let signatureBytes = Data(base64Encoded: signature).map(Array.init), !signatureBytes.isEmpty else {
            throw WotsError(.invalidSignature, "signature is not standard base64")
        }
        guard try await self.storage.authentication.consumeChallenge(nonceBytes, now: now) else {
            throw WotsError(.challengeInvalid, "the challenge is unknown, already used or expired")
        }
        return (nonceBytes, signatureBytes)
    }

    /// The token of a live session, or a 401 that says why.
    func token(forSession session: String, now: Date = Date()) async throws -> Token {
        guard let secret = Self.parse(session) else {
            throw WotsError(.invalidSession, "the session is malformed")
        }
        guard let session = try await self.accounts.session(hash: SHA256.hash(secret), now: now) else {
            throw WotsError(.invalidSession, "the session is unknown or expired; log in again")
        }
        return session.token
    }

    /// base64url without padding, so it travels in headers unescaped.
    private static func spell(_ secret: [UInt8]) -> String {
        secret.base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func parse(_ text: String) -> [UInt8]? {
        guard text.count == 43 else { return nil }
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        guard let data = Data(base64Encoded: base64), data.count == sessionSize else { return nil }
        return Array(data)
    }
}

extension Duration {
    var seconds: TimeInterval {
        TimeInterval(self.components.seconds) + TimeInterval(self.components.attoseconds) / 1e18
    }
}
