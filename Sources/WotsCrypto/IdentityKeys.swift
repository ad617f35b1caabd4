public import WotsCore

/// The private side of an identity: an RSA-2048 signing key (RSA-PSS only) and an RSA-2048 encryption key
/// (RSA-OAEP only), with their public keys and fingerprint.
///
/// Never describes its key material: `description` names the kind of keys and the fingerprint.
public struct IdentityKeys: Sendable, CustomStringConvertible {
    let signing: RSAKey
    let encryption: RSAKey
    /// Both public keys as DER SubjectPublicKeyInfo, as the directory publishes them.
    public let publicKeys: PublicKeys
    /// SHA-256 over both public keys, signing first.
    public let fingerprint: Fingerprint
    /// Encryption keys of the identities this account had before its rotations, newest first.
    public internal(set) var retired: [RetiredEncryptionKey] = []

    private init(signing: RSAKey, encryption: RSAKey) throws {
        let publicKeys = PublicKeys(signing: try signing.spkiDER(), encryption: try encryption.spkiDER())
        guard publicKeys.signing != publicKeys.encryption else {
            throw WotsError(.invalidKey, "the signing and encryption keys are the same key (must be two)")
        }
        self.signing = signing
        self.encryption = encryption
        self.publicKeys = publicKeys
        self.fingerprint = publicKeys.fingerprint
    }

    /// Generates two fresh RSA-2048 key pairs (e = 65537): one for signing, one for encryption.
    /// - Throws: `WotsError` `crypto_library` if OpenSSL fails.
    public static func generate() throws -> IdentityKeys {
        try IdentityKeys(signing: try RSAKey.generate(), encryption: try RSAKey.generate())
    }

    /// Reads both private keys from DER PKCS#8 PrivateKeyInfo.
    /// - Throws: `WotsError.invalidKey` unless both are RSA-2048 keys with e = 65537, and different.
    /// - Parameter retired: encryption keys of earlier identities, newest first.
    public init(signingPKCS8DER: [UInt8], encryptionPKCS8DER: [UInt8], retired: [RetiredEncryptionKey] = []) throws {
        try self.init(
            signing: try RSAKey.parsePrivate(pkcs8DER: signingPKCS8DER, what: "signing private key"),
            encryption: try RSAKey.parsePrivate(pkcs8DER: encryptionPKCS8DER, what: "encryption private key")
        )
        self.retired = retired
    }

    /// The signing private key as DER PKCS#8. Secret: seal it, cleanse it, never log it.
    public func signingPKCS8DER() throws -> [UInt8] { try self.signing.pkcs8DER() }

    /// The encryption private key as DER PKCS#8. Secret: seal it, cleanse it, never log it.
    public func encryptionPKCS8DER() throws -> [UInt8] { try self.encryption.pkcs8DER() }

    /// The signing public key, parsed.
    public var signingPublicKey: SigningPublicKey {
        SigningPublicKey(key: self.signing, spkiDER: self.publicKeys.signing)
    }

    /// The encryption public key, parsed.
    public var encryptionPublicKey: EncryptionPublicKey {
        EncryptionPublicKey(key: self.encryption, spkiDER: self.publicKeys.encryption)
    }

    public var description: String {
        "IdentityKeys(RSA-2048 ×2, fingerprint \(self.fingerprint.grouped), \(self.retired.count) retired)"
    }
}
