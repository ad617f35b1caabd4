import WotsCore

/// An RSA-2048 public key that only wraps content keys with RSA-OAEP, parsed once from its SPKI DER.
public struct EncryptionPublicKey: Sendable, Hashable, CustomStringConvertible {
    let key: RSAKey
    /// The canonical DER SubjectPublicKeyInfo this key was read from.
    public let spkiDER: [UInt8]

    /// Parses a DER SubjectPublicKeyInfo.
    /// - Throws: `WotsError.invalidKey` unless it is a canonically encoded RSA-2048 key with e = 65537.
    public init(spkiDER: [UInt8]) throws {
        self.key = try RSAKey.parsePublic(spkiDER: spkiDER, what: "encryption public key")
        self.spkiDER = spkiDER
    }

    init(key: RSAKey, spkiDER: [UInt8]) {
        self.key = key
        self.spkiDER = spkiDER
    }

    public var description: String { "EncryptionPublicKey(RSA-2048)" }

    public static func == (lhs: EncryptionPublicKey, rhs: EncryptionPublicKey) -> Bool { lhs.spkiDER == rhs.spkiDER }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.spkiDER) }
}
