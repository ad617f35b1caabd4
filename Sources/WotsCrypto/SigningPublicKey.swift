import WotsCore

/// An RSA-2048 public key that only verifies RSA-PSS signatures, parsed once from its SPKI DER.
public struct SigningPublicKey: Sendable, Hashable, CustomStringConvertible {
    let key: RSAKey
    /// The canonical DER SubjectPublicKeyInfo this key was read from.
    public let spkiDER: [UInt8]

    /// Parses a DER SubjectPublicKeyInfo.
    /// - Throws: `WotsError.invalidKey` unless it is a canonically encoded RSA-2048 key with e = 65537.
    public init(spkiDER: [UInt8]) throws {
        self.key = try RSAKey.parsePublic(spkiDER: spkiDER, what: "signing public key")
        self.spkiDER = spkiDER
    }

    init(key: RSAKey, spkiDER: [UInt8]) {
        self.key = key
        self.spkiDER = spkiDER
    }

    /// Whether `signature` is this key's RSA-PSS signature over exactly `message` (no label added).
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        self.key.verifyPSS(signature: signature, message: message)
    }

    public var description: String { "SigningPublicKey(RSA-2048)" }

    public static func == (lhs: SigningPublicKey, rhs: SigningPublicKey) -> Bool { lhs.spkiDER == rhs.spkiDER }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.spkiDER) }
}
