/// An identity's two public keys as DER SubjectPublicKeyInfo: one only verifies signatures, one only encrypts.
public struct PublicKeys: Sendable, Hashable, Codable {
    /// RSA-PSS verification key (SPKI DER).
    public var signing: [UInt8]
    /// RSA-OAEP encryption key (SPKI DER).
    public var encryption: [UInt8]

    public init(signing: [UInt8], encryption: [UInt8]) {
        self.signing = signing
        self.encryption = encryption
    }

    /// Hashes each key's bytes in one call: an array's own hashing feeds the hasher one byte at a time, and the relay
    /// looks parsed keys up by these ~540 bytes for every signature it checks.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.signing.count)
        self.signing.withUnsafeBytes { hasher.combine(bytes: $0) }
        self.encryption.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    private enum CodingKeys: String, CodingKey {
        case signing, encryption
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.signing = try container.decodeBase64(forKey: .signing)
        self.encryption = try container.decodeBase64(forKey: .encryption)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64(self.signing, forKey: .signing)
        try container.encodeBase64(self.encryption, forKey: .encryption)
    }
}
