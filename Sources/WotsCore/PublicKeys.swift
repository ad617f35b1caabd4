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
