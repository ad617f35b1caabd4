public import WotsCore

extension SecretKeys {
    /// Label hashed before the authentication key to make the restore key's seed.
    public static let restoreKeyLabel: [UInt8] = Array("wots-restore-key-v1".utf8) + [0]

    /// The Ed25519 key that proves knowledge of the secret when restoring an account: its seed is
    /// SHA-256(`restoreKeyLabel` || authentication key). The relay keeps only its public key (the record's
    /// `secretVerifier`) and checks a signature over a single-use nonce, so nothing a client sends can be replayed.
    /// - Throws: `crypto_library` if OpenSSL fails.
    public func restoreKey() throws -> Ed25519PrivateKey {
        var seed = SHA256.hash(Self.restoreKeyLabel + self.authenticationKey)
        defer { cleanse(&seed) }
        return try Ed25519PrivateKey(seed: seed)
    }

    /// The restore key's 32-byte public key: what the relay stores as the record's `secretVerifier`.
    /// - Throws: `crypto_library` if OpenSSL fails.
    public func secretVerifier() throws -> [UInt8] {
        try self.restoreKey().publicKey.rawRepresentation
    }

    /// Signs a restore challenge for `nickname` at the relay `relayID` (see `RestoreProof`).
    /// - Throws: `WotsError.malformed` for an empty or oversized relay id or nonce, `crypto_library` if OpenSSL fails.
    public func signRestore(relayID: [UInt8], nonce: [UInt8], nickname: Nickname) throws -> [UInt8] {
        try self.restoreKey().signature(
            for: try RestoreProof.signedBytes(relayID: relayID, nonce: nonce, nickname: nickname)
        )
    }
}
