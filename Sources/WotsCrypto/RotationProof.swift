public import WotsCore

/// Proof for replacing an account's keys: both the old and the new signing key sign
/// `"wots-rotate-v1\0" || token(16) || old fingerprint(32) || u16 len || new signing SPKI || u16 len || new
/// encryption SPKI` with RSA-PSS (SHA-256, MGF1-SHA-256, salt 32). The old signature shows the account owner
/// wants the change; the new one shows possession of the new key.
public struct RotationProof: Sendable, Hashable, Codable {
    public static let label: [UInt8] = Array("wots-rotate-v1".utf8) + [0]

    /// Signature by the current (old) signing key.
    public var oldKeySignature: [UInt8]
    /// Signature by the new signing key.
    public var newKeySignature: [UInt8]

    public init(oldKeySignature: [UInt8], newKeySignature: [UInt8]) {
        self.oldKeySignature = oldKeySignature
        self.newKeySignature = newKeySignature
    }

    /// The signed bytes.
    /// - Throws: `WotsError.malformed` when a key is longer than 65,535 bytes.
    public static func signedBytes(token: Token, oldFingerprint: Fingerprint, newKeys: PublicKeys) throws -> [UInt8] {
        guard newKeys.signing.count <= UInt16.max, newKeys.encryption.count <= UInt16.max else {
            throw WotsError(.malformed, "public keys longer than 65,535 bytes")
        }
        var writer = ByteWriter(capacity: label.count + 16 + 32 + 4 + newKeys.signing.count * 2)
        writer.write(label)
        writer.write(token.bytes)
        writer.write(oldFingerprint.bytes)
        writer.write(uint16Prefixed: newKeys.signing)
        writer.write(uint16Prefixed: newKeys.encryption)
        return writer.bytes
    }

    /// Signs the rotation of `token` from `oldIdentity` to `newIdentity` with both signing keys.
    /// - Throws: `WotsError` `crypto_library` if OpenSSL fails.
    public static func sign(token: Token, oldIdentity: IdentityKeys, newIdentity: IdentityKeys) throws -> RotationProof
    {
        let message = try Self.signedBytes(
            token: token,
            oldFingerprint: oldIdentity.fingerprint,
            newKeys: newIdentity.publicKeys
        )
        return RotationProof(
            oldKeySignature: try oldIdentity.signing.signPSS(message),
            newKeySignature: try newIdentity.signing.signPSS(message)
        )
    }

    /// Whether both keys are usable and both signatures verify: the old one under `oldKeys`, the new one under
    /// `newKeys`.
    public func verify(token: Token, oldKeys: PublicKeys, newKeys: PublicKeys) -> Bool {
        guard let old = try? ParsedPublicKeys.parse(oldKeys), let new = try? ParsedPublicKeys.parse(newKeys),
            let message = try? Self.signedBytes(token: token, oldFingerprint: old.fingerprint, newKeys: newKeys)
        else { return false }
        return old.signing.isValidSignature(self.oldKeySignature, for: message)
            && new.signing.isValidSignature(self.newKeySignature, for: message)
    }

    private enum CodingKeys: String, CodingKey {
        case oldKeySignature, newKeySignature
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.oldKeySignature = try container.decodeBase64(forKey: .oldKeySignature)
        self.newKeySignature = try container.decodeBase64(forKey: .newKeySignature)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64(self.oldKeySignature, forKey: .oldKeySignature)
        try container.encodeBase64(self.newKeySignature, forKey: .newKeySignature)
    }
}
