public import Foundation
public import WotsCore

/// What relay authentication keeps, shared by every relay process on one database so they agree.
public protocol AuthenticationRepository: Sendable {
    /// The relay's id: `candidate` is stored if none exists yet; the stored one is returned either way.
    func relayID(storingIfAbsent candidate: [UInt8]) async throws -> [UInt8]

    /// A secret the relay keeps for itself under `name` (the challenge MAC key): `candidate` is stored if nothing
    /// is stored under that name yet; the stored one is returned either way.
    func relaySecret(named name: String, storingIfAbsent candidate: [UInt8]) async throws -> [UInt8]

    /// Records that a challenge nonce has been answered, until it expires, and says whether this was the first
    /// answer. Of several relay processes racing with one nonce, exactly one gets true.
    func useChallenge(_ nonce: [UInt8], expiresAt: Date) async throws -> Bool

    /// Remembers a session by the hash of its bearer secret (the secret itself is never stored).
    func storeSession(hash: [UInt8], token: Token, expiresAt: Date) async throws

    /// The unexpired session with this hash, nil otherwise.
    func session(hash: [UInt8], now: Date) async throws -> ActiveSession?

    /// Ends every session of an account (account deletion, key rotation).
    func deleteSessions(of token: Token) async throws

    /// Removes expired challenges and sessions.
    /// - Returns: how many rows were removed.
    @discardableResult
    func sweepExpired(now: Date) async throws -> Int
}
