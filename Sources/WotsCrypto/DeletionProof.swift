public import WotsCore

/// What a client signs with its identity's signing key to delete its account, so a stolen bearer session alone
/// cannot: `"wots-delete-v1\0" || u16 len || relay id || u16 len || nonce || token(16)`, RSA-PSS as for logins.
public enum DeletionProof {
    public static let label: [UInt8] = Array("wots-delete-v1".utf8) + [0]

    /// The signed bytes.
    /// - Throws: `WotsError.malformed` when the relay id or nonce is empty or longer than 65,535 bytes.
    public static func signedBytes(relayID: [UInt8], nonce: [UInt8], token: Token) throws -> [UInt8] {
        try ChallengeStatement.bytes(label: Self.label, relayID: relayID, nonce: nonce, subject: token.bytes)
    }
}

extension IdentityKeys {
    /// Signs a relay's challenge as the statement "delete account `token` at this relay".
    /// - Throws: `WotsError.malformed` for an empty or oversized relay id or nonce, `crypto_library` if OpenSSL fails.
    public func signDeletion(relayID: [UInt8], nonce: [UInt8], token: Token) throws -> [UInt8] {
        try self.signing.signPSS(try DeletionProof.signedBytes(relayID: relayID, nonce: nonce, token: token))
    }
}

extension PublicKeys {
    /// Whether `signature` is these keys' signed statement deleting `token` at this relay with this nonce.
    public func verifyDeletion(signature: [UInt8], relayID: [UInt8], nonce: [UInt8], token: Token) -> Bool {
        guard let key = try? self.signingKey(),
            let message = try? DeletionProof.signedBytes(relayID: relayID, nonce: nonce, token: token)
        else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
