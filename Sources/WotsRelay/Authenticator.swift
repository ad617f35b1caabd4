import Foundation
import WotsCore
import WotsCrypto
import WotsStorage

/// Challenge–response login and bearer sessions, backed by the shared authentication repository so that every
/// relay process on one database accepts the same sessions and consumes each nonce once.
struct Authenticator: Sendable {
    static let sessionSize = 32

    let relayID: [UInt8]
    let minter: ChallengeMinter
    let storage: RelayStorage
    let accounts: AccountCache
    let configuration: RelayConfiguration

    /// Issues a single-use nonce; nothing is stored until it is answered.
    func challenge(now: Date = Date()) -> ChallengeResponse {
        let expiresAt = now.addingTimeInterval(self.configuration.challengeLifetime.seconds)
        let nonce = self.minter.mint(expiresAt: expiresAt)
        return ChallengeResponse(nonce: nonce.base64, relayID: self.relayID.base64, expiresAt: expiresAt)
    }

    /// Checks a signed challenge and opens a session. Only a login whose signature verifies writes anything: the
    /// used nonce, then the session.
    func openSession(_ request: SessionRequest, now: Date = Date()) async throws -> SessionResponse {
        let answer = try self.answer(nonce: request.nonce, signature: request.signature, now: now)
        let (nonce, signature) = (answer.nonce, answer.signature)
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
        try await self.refuseIfSuspended(request.token)
        try await self.spend(answer)
        let secret = SecureRandom.bytes(Self.sessionSize)
        let expiresAt = now.addingTimeInterval(self.configuration.sessionLifetime.seconds)
        try await self.storage.authentication.storeSession(
            hash: SHA256.hash(secret),
            token: request.token,
            expiresAt: expiresAt
        )
        // A suspension that committed between the first check and the session being stored did not see (and end)
        // this session: look again and end it.
        do {
            try await self.refuseIfSuspended(request.token)
        } catch {
            try await self.storage.authentication.deleteSessions(of: request.token)
            throw error
        }
        return SessionResponse(session: Self.spell(secret), expiresAt: expiresAt)
    }

    /// - Throws: `account_suspended` when the relay's operator suspended the account.
    private func refuseIfSuspended(_ token: Token) async throws {
        if try await self.storage.administration.suspension(of: token) != nil {
            throw WotsError(.accountSuspended, "the relay's operator suspended this account; it cannot log in")
        }
    }

    /// A decoded answer to one of this relay's challenges.
    struct Answer: Sendable {
        var nonce: [UInt8]
        var signature: [UInt8]
        var expiresAt: Date
    }

    /// Decodes a challenge answer and checks that the nonce is this relay's and unexpired (nothing is read or
    /// written); `spend(_:)` then makes sure it is answered once.
    /// - Throws: `invalid_nonce`, `invalid_signature` for malformed fields; `challenge_invalid` when the nonce is
    ///   not this relay's or expired.
    func answer(nonce: String, signature: String, now: Date = Date()) throws -> Answer {
        guard let nonceBytes = Data(base64Encoded: nonce).map(Array.init), nonceBytes.count == ChallengeMinter.size
        else {
            throw WotsError(.invalidNonce, "nonce is not the base64 of a \(ChallengeMinter.size)-byte challenge")
        }
        guard let signatureBytes = Data(base64Encoded: signature).map(Array.init), !signatureBytes.isEmpty else {
            throw WotsError(.invalidSignature, "signature is not standard base64")
        }
        guard let expiresAt = self.minter.expiry(of: nonceBytes, now: now) else {
            throw WotsError(.challengeInvalid, "the challenge is not this relay's, or expired")
        }
        return Answer(nonce: nonceBytes, signature: signatureBytes, expiresAt: expiresAt)
    }

    /// Records the answer's nonce as used.
    /// - Throws: `challenge_invalid` when it was answered before (here or at another process on the database).
    func spend(_ answer: Answer) async throws {
        guard try await self.storage.authentication.useChallenge(answer.nonce, expiresAt: answer.expiresAt) else {
            throw WotsError(.challengeInvalid, "the challenge was answered already")
        }
    }

    /// The token of a live session, or a 401 that says why.
    func token(forSession session: String, now: Date = Date()) async throws -> Token {
        try await self.grant(forSession: session, now: now).token
    }

    /// The token of a live session that memory holds; nil when `token(forSession:now:)` must decide (a session that
    /// is malformed, unknown here, or expired is never answered from here).
    func cachedToken(forSession session: String, now: Date = Date()) -> Token? {
        guard let secret = Self.parse(session) else { return nil }
        return self.accounts.cachedSession(hash: SHA256.hash(secret), now: now)?.token
    }

    /// A live session: whose it is, until when, and the hash the relay keeps of it; or a 401 that says why.
    func grant(forSession session: String, now: Date = Date()) async throws -> SessionGrant {
        guard let secret = Self.parse(session) else {
            throw WotsError(.invalidSession, "the session is malformed")
        }
        let hash = SHA256.hash(secret)
        guard let session = try await self.accounts.session(hash: hash, now: now) else {
            throw WotsError(.invalidSession, "the session is unknown or expired; log in again")
        }
        return SessionGrant(token: session.token, hash: hash, expiresAt: session.expiresAt)
    }

    /// base64url without padding, so it travels in headers unescaped.
    private static func spell(_ secret: [UInt8]) -> String {
        secret.base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The session's 32 bytes from the one spelling `spell` gives them: 43 base64url digits, unpadded, the last
    /// one's unused bits zero. Read as bytes: Foundation's string replacements here were 4 % of the relay's CPU per
    /// stored message.
    private static func parse(_ text: String) -> [UInt8]? {
        var digits = Array(text.utf8)
        guard digits.count == 43 else { return nil }
        for index in digits.indices {
            switch digits[index] {
            case UInt8(ascii: "-"): digits[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): digits[index] = UInt8(ascii: "/")
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            default: continue
            }
        }
        digits.append(UInt8(ascii: "="))
        guard let secret = Base64Text.decode(digits[...]), secret.count == sessionSize else { return nil }
        return secret
    }
}
