public import WotsCore

extension PrivateRecord {
    /// Derives keys from `secret` and seals `identity` into a new private record.
    /// - Parameters:
    ///   - avatar: stored beside the keys, unencrypted. Default none.
    ///   - parameters: scrypt salt and cost. Default a fresh random salt with N = 2^15, r = 8, p = 1.
    /// - Throws: `WotsError.malformed` for out-of-bounds parameters, `crypto_library` if OpenSSL fails.
    public static func seal(
        identity: IdentityKeys,
        token: Token,
        secret: String,
        avatar: Avatar? = nil,
        parameters: KeyDerivationParameters = .random()
    ) throws -> PrivateRecord {
        let keys = try SecretKeys.derive(secret: secret, parameters: parameters)
        return try Self.seal(identity: identity, token: token, keys: keys, parameters: parameters, avatar: avatar)
    }

    /// Seals `identity` into a new private record with keys already derived from the secret with `parameters`.
    ///
    /// A key rotation uses this with the account's stored parameters: the same secret keeps working, the secret
    /// verifier stays the same, and only the derived keys are needed, not the secret (the nonce is fresh).
    /// - Parameters:
    ///   - keys: derived from the secret with exactly `parameters`.
    ///   - avatar: stored beside the keys, unencrypted. Default none.
    /// - Throws: `crypto_library` if OpenSSL fails.
    public static func seal(
        identity: IdentityKeys,
        token: Token,
        keys: SecretKeys,
        parameters: KeyDerivationParameters,
        avatar: Avatar? = nil
    ) throws -> PrivateRecord {
        PrivateRecord(
            token: token,
            keyDerivation: parameters,
            sealedPrivateKeys: try SealedPrivateKeys.seal(identity, token: token, keys: keys).bytes,
            secretVerifier: try keys.secretVerifier(),
            avatar: avatar
        )
    }

    /// Derives keys from `secret` with the stored parameters and opens the private keys.
    /// - Throws: `WotsError.wrongSecret` for another secret, `.malformed` for a damaged record.
    public func openIdentity(secret: String) throws -> IdentityKeys {
        try self.openIdentity(keys: try SecretKeys.derive(secret: secret, parameters: self.keyDerivation))
    }

    /// Opens the private keys with already derived keys.
    /// - Throws: `WotsError.wrongSecret` when the keys do not match the verifier or do not open the blob.
    public func openIdentity(keys: SecretKeys) throws -> IdentityKeys {
        guard self.verifies(authenticationKey: keys.authenticationKey) else {
            throw WotsError(.wrongSecret, "the secret does not match this account's secret verifier")
        }
        return try SealedPrivateKeys(bytes: self.sealedPrivateKeys).open(token: self.token, keys: keys)
    }

    /// Whether `authenticationKey` makes the restore key whose public key is the stored secret verifier.
    public func verifies(authenticationKey: [UInt8]) -> Bool {
        let keys = SecretKeys(encryptionKey: [], authenticationKey: authenticationKey)
        guard let verifier = try? keys.secretVerifier() else { return false }
        return constantTimeEquals(verifier, self.secretVerifier)
    }
}
