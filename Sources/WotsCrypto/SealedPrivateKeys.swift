public import WotsCore

/// Both private keys of an identity, sealed with AES-256-GCM under the encryption key derived from the secret.
///
/// Layout (SECURITY.md): `0x01 || nonce(12) || AES-256-GCM(u16 len || signing PKCS#8 || u16 len || encryption PKCS#8)
/// || tag(16)`, with associated data `"wots-private-keys-v1\0" || token(16)`, so a sealed blob cannot be moved to
/// another account.
public struct SealedPrivateKeys: Sendable, Hashable {
    public static let version: UInt8 = 1
    public static let label: [UInt8] = Array("wots-private-keys-v1".utf8) + [0]

    /// The sealed blob, as stored in `PrivateRecord.sealedPrivateKeys`.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Seals both private keys for `token` under `keys.encryptionKey` with a fresh random nonce.
    /// - Throws: `WotsError` `crypto_library` if OpenSSL fails.
    public static func seal(_ identity: IdentityKeys, token: Token, keys: SecretKeys) throws -> SealedPrivateKeys {
        var signing = try identity.signingPKCS8DER()
        defer { cleanse(&signing) }
        var encryption = try identity.encryptionPKCS8DER()
        defer { cleanse(&encryption) }
        var writer = ByteWriter(capacity: signing.count + encryption.count + 4)
        writer.write(uint16Prefixed: signing)
        writer.write(uint16Prefixed: encryption)
        var plaintext = writer.bytes
        defer { cleanse(&plaintext) }
        let nonce = SecureRandom.bytes(AESGCM.nonceSize)
        let sealed = try AESGCM.seal(plaintext, key: keys.encryptionKey, nonce: nonce, aad: Self.label + token.bytes)
        return SealedPrivateKeys(bytes: [Self.version] + nonce + sealed)
    }

    /// Opens the blob for `token` with `keys.encryptionKey`.
    /// - Throws: `WotsError.wrongSecret` when the key does not open it (or it was changed, or it belongs to
    ///   another token), `.malformed` / `.unsupportedVersion` for a damaged blob, `.invalidKey` for bad keys inside.
    public func open(token: Token, keys: SecretKeys) throws -> IdentityKeys {
        guard let version = self.bytes.first else { throw WotsError(.malformed, "sealed private keys are empty") }
        guard version == Self.version else {
            throw WotsError(.unsupportedVersion, "sealed private keys version \(version) is not supported (only 1)")
        }
        guard self.bytes.count >= 1 + AESGCM.nonceSize + AESGCM.tagSize else {
            throw WotsError(.malformed, "sealed private keys are \(self.bytes.count) bytes, too short")
        }
        let nonce = Array(self.bytes[1..<1 + AESGCM.nonceSize])
        var plaintext = try AESGCM.open(
            Array(self.bytes[(1 + AESGCM.nonceSize)...]),
            key: keys.encryptionKey,
            nonce: nonce,
            aad: Self.label + token.bytes,
            failure: WotsError(
                .wrongSecret,
                "the secret does not open these private keys (wrong secret or damaged record)"
            )
        )
        defer { cleanse(&plaintext) }
        var reader = ByteReader(plaintext)
        guard var signing = reader.readUInt16Prefixed(), var encryption = reader.readUInt16Prefixed(),
            reader.remaining == 0
        else {
            throw WotsError(.malformed, "sealed private keys do not hold two length-prefixed keys")
        }
        defer {
            cleanse(&signing)
            cleanse(&encryption)
        }
        return try IdentityKeys(signingPKCS8DER: signing, encryptionPKCS8DER: encryption)
    }
}
