import Synchronization
public import WotsCore

extension PublicKeys {
    /// SHA-256 over the signing key's SPKI DER followed by the encryption key's SPKI DER.
    public var fingerprint: Fingerprint {
        // A SHA-256 digest is always 32 bytes.
        try! Fingerprint(bytes: SHA256.hash(self.signing + self.encryption))
    }

    /// Checks that both keys are canonical RSA-2048 SPKI DER with e = 65537 and that they are two different keys.
    /// - Throws: `WotsError.invalidKey` naming the key at fault.
    public func validate() throws {
        _ = try ParsedPublicKeys.parse(self)
    }

    /// The signing key, parsed.
    /// - Throws: `WotsError.invalidKey`.
    public func signingKey() throws -> SigningPublicKey { try ParsedPublicKeys.parse(self).signing }

    /// The encryption key, parsed.
    /// - Throws: `WotsError.invalidKey`.
    public func encryptionKey() throws -> EncryptionPublicKey { try ParsedPublicKeys.parse(self).encryption }
}

/// Both public keys of an identity, parsed, with their fingerprint.
///
/// Parsing RSA DER costs OpenSSL 3 tens of microseconds, a fair share of a whole seal or open, and the same few
/// contacts' keys come back again and again; so parsed keys are kept in a small process-wide cache keyed by the DER.
struct ParsedPublicKeys: Sendable {
    let signing: SigningPublicKey
    let encryption: EncryptionPublicKey
    let fingerprint: Fingerprint

    private static let capacity = 512
    private static let cache = Mutex<[PublicKeys: ParsedPublicKeys]>([:])

    static func parse(_ keys: PublicKeys) throws -> ParsedPublicKeys {
        if let cached = Self.cache.withLock({ $0[keys] }) { return cached }
        guard keys.signing != keys.encryption else {
            throw WotsError(.invalidKey, "the signing and encryption public keys are the same key (must be two)")
        }
        let parsed = ParsedPublicKeys(
            signing: try SigningPublicKey(spkiDER: keys.signing),
            encryption: try EncryptionPublicKey(spkiDER: keys.encryption),
            fingerprint: keys.fingerprint
        )
        Self.cache.withLock { cache in
            // Crude but bounded: a full cache starts over rather than tracking recency.
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[keys] = parsed
        }
        return parsed
    }
}
