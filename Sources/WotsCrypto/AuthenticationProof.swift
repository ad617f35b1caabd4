public import WotsCore

/// The bytes a client signs to log in to a relay: `"wots-auth-v1\0" || u16 len || relay id || u16 len || nonce ||
/// token(16)`, RSA-PSS with the same parameters as envelopes. The label differs from the envelope label, so a login
/// signature never passes as a message signature, nor the reverse; the relay id makes it useless at another relay.
public enum AuthenticationProof {
    public static let label: [UInt8] = Array("wots-auth-v1".utf8) + [0]

    /// The signed bytes.
    /// - Throws: `WotsError.malformed` when the relay id or nonce is empty or longer than 65,535 bytes.
    public static func signedBytes(relayID: [UInt8], nonce: [UInt8], token: Token) throws -> [UInt8] {
        try ChallengeStatement.bytes(label: Self.label, relayID: relayID, nonce: nonce, subject: token.bytes)
    }
}

extension IdentityKeys {
    /// Signs a relay's login challenge with the signing key.
    /// - Throws: `WotsError.malformed` for an empty or oversized relay id or nonce, `crypto_library` if OpenSSL fails.
    public func signAuthentication(relayID: [UInt8], nonce: [UInt8], token: Token) throws -> [UInt8] {
        try self.signing.signPSS(try AuthenticationProof.signedBytes(relayID: relayID, nonce: nonce, token: token))
    }
}

extension SigningPublicKey {
    /// Whether `signature` is this key's login signature for that relay, nonce and token.
    public func verifyAuthentication(signature: [UInt8], relayID: [UInt8], nonce: [UInt8], token: Token) -> Bool {
        guard let message = try? AuthenticationProof.signedBytes(relayID: relayID, nonce: nonce, token: token) else {
            return false
        }
        return self.isValidSignature(signature, for: message)
    }
}

extension PublicKeys {
    /// Whether `signature` is a login signature by these keys' signing key; false also when the keys are unusable.
    public func verifyAuthentication(signature: [UInt8], relayID: [UInt8], nonce: [UInt8], token: Token) -> Bool {
        guard let key = try? self.signingKey() else { return false }
        return key.verifyAuthentication(signature: signature, relayID: relayID, nonce: nonce, token: token)
    }
}
