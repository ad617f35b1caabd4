public import WotsCore

/// The encryption private key of an identity this account had before a rotation, kept so mail sealed to it still
/// opens. It only decrypts; it never signs and is never published again.
public struct RetiredEncryptionKey: Sendable, CustomStringConvertible {
    /// Most retired keys an identity keeps; the oldest is dropped past it.
    public static let maximumCount = 16

    /// The fingerprint of the identity the key belonged to: what envelopes sealed to it name as recipient.
    public let fingerprint: Fingerprint
    let key: RSAKey

    init(fingerprint: Fingerprint, key: RSAKey) {
        self.fingerprint = fingerprint
        self.key = key
    }

    /// Reads a retired key from DER PKCS#8.
    /// - Throws: `invalid_key` unless it is an RSA-2048 key with e = 65537.
    public init(fingerprint: Fingerprint, pkcs8DER: [UInt8]) throws {
        self.init(
            fingerprint: fingerprint,
            key: try RSAKey.parsePrivate(pkcs8DER: pkcs8DER, what: "retired encryption private key")
        )
    }

    /// The private key as DER PKCS#8. Secret: seal it, cleanse it, never log it.
    public func pkcs8DER() throws -> [UInt8] { try self.key.pkcs8DER() }

    public var description: String { "RetiredEncryptionKey(RSA-2048, identity \(self.fingerprint.grouped))" }
}

extension IdentityKeys {
    /// New keys for the same account after a rotation: `successor`'s keys, with this identity's encryption key
    /// retired in front of its own retired keys (at most `RetiredEncryptionKey.maximumCount`, newest first).
    public func rotated(to successor: IdentityKeys) -> IdentityKeys {
        var identity = successor
        identity.retired = Array(
            ([RetiredEncryptionKey(fingerprint: self.fingerprint, key: self.encryption)] + self.retired)
                .prefix(RetiredEncryptionKey.maximumCount)
        )
        return identity
    }

    /// The encryption key that opens mail addressed to the identity with `fingerprint`: the current one or a
    /// retired one; nil when this account never had it.
    func encryptionKey(for fingerprint: Fingerprint) -> RSAKey? {
        if constantTimeEquals(fingerprint.bytes, self.fingerprint.bytes) { return self.encryption }
        return self.retired.first { constantTimeEquals(fingerprint.bytes, $0.fingerprint.bytes) }?.key
    }
}
