public import WotsCore

/// An identity's private keys, and the encryption keys of its earlier identities, sealed with AES-256-GCM under the
/// encryption key derived from the secret.
///
/// Layout (SECURITY.md, "Sealed private keys"): `version || nonce(12) || AES-256-GCM(plaintext) || tag(16)` with
/// associated data `label || token(16)`, so a sealed blob cannot be moved to another account.
/// - Version 2 (written): label `"wots-private-keys-v2\0"`; plaintext `u16-bytes(signing PKCS#8) ||
///   u16-bytes(encryption PKCS#8) || u16(count) || count × (fingerprint(32) || u16-bytes(retired encryption
///   PKCS#8))`, retired keys newest first.
/// - Version 1 (read): label `"wots-private-keys-v1\0"`; plaintext the two keys only.
public struct SealedPrivateKeys: Sendable, Hashable {
    public static let version: UInt8 = 2
    public static let label: [UInt8] = Self.label(version: 2)

    /// The sealed blob, as stored in `PrivateRecord.sealedPrivateKeys`.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    static func label(version: UInt8) -> [UInt8] { Array("wots-private-keys-v\(version)".utf8) + [0] }

    /// Seals the identity's keys and its retired keys for `token` under `keys.encryptionKey` with a fresh nonce.
    /// - Throws: `crypto_library` if OpenSSL fails.
    public static func seal(_ identity: IdentityKeys, token: Token, keys: SecretKeys) throws -> SealedPrivateKeys {
        try Self.seal(identity, token: token, keys: keys, nonce: SecureRandom.bytes(AESGCM.nonceSize))
    }

    /// Seals with a given nonce: only for the known-answer vectors, since a nonce must never be reused.
    static func seal(_ identity: IdentityKeys, token: Token, keys: SecretKeys, nonce: [UInt8]) throws
        -> SealedPrivateKeys
    {
        var plaintext = try Self.plaintext(of: identity)
        defer { cleanse(&plaintext) }
        let aad = Self.label + token.bytes
        let sealed = try AESGCM.seal(plaintext, key: keys.encryptionKey, nonce: nonce, aad: aad)
        return SealedPrivateKeys(bytes: [Self.version] + nonce + sealed)
    }

    private static func plaintext(of identity: IdentityKeys) throws -> [UInt8] {
        var writer = ByteWriter(capacity: 2_600 + identity.retired.count * 1_300)
        var signing = try identity.signingPKCS8DER()
        defer { cleanse(&signing) }
        var encryption = try identity.encryptionPKCS8DER()
        defer { cleanse(&encryption) }
        writer.write(uint16Prefixed: signing)
        writer.write(uint16Prefixed: encryption)
        writer.write(integer: UInt16(identity.retired.count))
        for retired in identity.retired {
            var key = try retired.pkcs8DER()
            defer { cleanse(&key) }
            writer.write(retired.fingerprint.bytes)
            writer.write(uint16Prefixed: key)
        }
        return writer.bytes
    }

    /// Opens the blob for `token` with `keys.encryptionKey`.
    /// - Throws: `wrong_secret` when the key does not open it (or it was changed, or it belongs to another token),
    ///   `malformed` / `unsupported_version` for a damaged blob, `invalid_key` for bad keys inside.
    public func open(token: Token, keys: SecretKeys) throws -> IdentityKeys {
        guard let version = self.bytes.first else { throw WotsError(.malformed, "sealed private keys are empty") }
        guard version == 1 || version == 2 else {
            throw WotsError(.unsupportedVersion, "sealed private keys version \(version) is not supported (1 or 2)")
        }
        guard self.bytes.count >= 1 + AESGCM.nonceSize + AESGCM.tagSize else {
            throw WotsError(.malformed, "sealed private keys are \(self.bytes.count) bytes, too short")
        }
        var plaintext = try AESGCM.open(
            Array(self.bytes[(1 + AESGCM.nonceSize)...]),
            key: keys.encryptionKey,
            nonce: Array(self.bytes[1..<1 + AESGCM.nonceSize]),
            aad: Self.label(version: version) + token.bytes,
            failure: WotsError(
                .wrongSecret,
                "the secret does not open these private keys (wrong secret or damaged record)"
            )
        )
        defer { cleanse(&plaintext) }
        return try Self.identity(from: plaintext, version: version)
    }

    private static func identity(from plaintext: [UInt8], version: UInt8) throws -> IdentityKeys {
        var reader = ByteReader(plaintext)
        guard var signing = reader.readUInt16Prefixed(), var encryption = reader.readUInt16Prefixed() else {
            throw WotsError(.malformed, "sealed private keys do not start with two length-prefixed keys")
        }
        defer {
            cleanse(&signing)
            cleanse(&encryption)
        }
        var retired: [RetiredEncryptionKey] = []
        if version >= 2 {
            guard let count = reader.readInteger(as: UInt16.self), count <= RetiredEncryptionKey.maximumCount else {
                throw WotsError(.malformed, "sealed private keys hold no valid count of retired keys")
            }
            for _ in 0..<count {
                guard let fingerprint = reader.read(count: 32), var key = reader.readUInt16Prefixed() else {
                    throw WotsError(.malformed, "sealed private keys end inside a retired key")
                }
                defer { cleanse(&key) }
                retired.append(
                    try RetiredEncryptionKey(fingerprint: try Fingerprint(bytes: fingerprint), pkcs8DER: key)
                )
            }
        }
        guard reader.remaining == 0 else {
            throw WotsError(.malformed, "sealed private keys have \(reader.remaining) bytes after the keys")
        }
        return try IdentityKeys(signingPKCS8DER: signing, encryptionPKCS8DER: encryption, retired: retired)
    }
}
