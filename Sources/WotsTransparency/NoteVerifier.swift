import WotsCore
public import WotsCrypto

/// A trusted Ed25519 note key: name, key ID and public key, as a client is configured with it.
///
/// Its text form is the verifier key string `NAME+KEYID+BASE64(0x01 || public key)`, with the key ID as eight
/// lowercase hex digits.
public struct NoteVerifier: Sendable, Hashable, CustomStringConvertible {
    /// The C2SP signature type byte of Ed25519.
    public static let ed25519SignatureType: UInt8 = 0x01
    /// Longest verifier key string accepted, in bytes.
    public static let maximumVerifierKeyByteCount = 4096

    /// The key name signature lines carry.
    public let name: String
    /// `SHA-256(name || 0x0A || 0x01 || public key)[0..<4]`, big-endian.
    public let keyID: UInt32
    /// The Ed25519 public key.
    public let publicKey: Ed25519PublicKey

    /// The verifier for the key `publicKey` under `name`.
    /// - Throws: `invalid_key` for an empty name or one with a space, `+` or control character.
    public init(name: String, publicKey: Ed25519PublicKey) throws {
        guard NoteRules.isValidKeyName(name) else {
            throw Refuse.invalidKey(
                "key name \"\(name.prefix(64))\" is empty or has a space, \"+\" or control character"
            )
        }
        self.name = name
        self.publicKey = publicKey
        self.keyID = Self.keyID(name: name, publicKey: publicKey)
    }

    /// Parses a verifier key string `NAME+KEYID+BASE64(0x01 || public key)`.
    /// - Throws: `invalid_key` naming what is wrong, including a key ID that does not match the key.
    public init(verifierKey: String) throws {
        guard verifierKey.utf8.count <= Self.maximumVerifierKeyByteCount else {
            throw Refuse.invalidKey("verifier key is longer than \(Self.maximumVerifierKeyByteCount) bytes")
        }
        // The name and key ID hold no "+"; the base64 part may.
        let parts = verifierKey.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Refuse.invalidKey("verifier key is not NAME+KEYID+KEY") }
        let (name, hexID, base64) = (String(parts[0]), parts[1], parts[2])
        guard hexID.utf8.count == 8, hexID.utf8.allSatisfy(Self.isLowercaseHexDigit), let id = UInt32(hexID, radix: 16)
        else {
            throw Refuse.invalidKey("the key ID in verifier key \(name) is not eight lowercase hex digits")
        }
        guard let key = StrictBase64.decode(base64), key.first == Self.ed25519SignatureType,
            key.count == 1 + Ed25519PublicKey.byteCount
        else {
            throw Refuse.invalidKey("verifier key \(name) is not canonical base64 of 0x01 and a 32-byte Ed25519 key")
        }
        let publicKey: Ed25519PublicKey
        do {
            publicKey = try Ed25519PublicKey(rawRepresentation: Array(key.dropFirst()))
        } catch {
            throw Refuse.invalidKey("verifier key \(name) holds no usable Ed25519 public key")
        }
        try self.init(name: name, publicKey: publicKey)
        guard self.keyID == id else {
            throw Refuse.invalidKey("verifier key \(name) names key ID \(hexID), but its key's ID is \(self.hexKeyID)")
        }
    }

    /// `NAME+KEYID+BASE64(0x01 || public key)`.
    public var verifierKey: String {
        let key = [Self.ed25519SignatureType] + self.publicKey.rawRepresentation
        return "\(self.name)+\(self.hexKeyID)+\(StrictBase64.encode(key))"
    }

    /// The key ID as eight lowercase hex digits.
    public var hexKeyID: String {
        Hex.encode((0..<4).map { UInt8(truncatingIfNeeded: self.keyID >> (24 - 8 * $0)) })
    }

    /// `SHA-256(name || 0x0A || 0x01 || public key)`, first four bytes read big-endian.
    public static func keyID(name: String, publicKey: Ed25519PublicKey) -> UInt32 {
        let digest = SHA256.hash(Array(name.utf8) + [0x0A, Self.ed25519SignatureType] + publicKey.rawRepresentation)
        return digest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Whether `signature` names this key: same key name (byte for byte) and same key ID.
    func signs(as signature: NoteSignature) -> Bool {
        signature.keyID == self.keyID && NoteRules.sameBytes(signature.keyName, self.name)
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    public var description: String { self.verifierKey }

    public static func == (lhs: NoteVerifier, rhs: NoteVerifier) -> Bool {
        NoteRules.sameBytes(lhs.name, rhs.name) && lhs.publicKey == rhs.publicKey
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(Array(self.name.utf8))
        hasher.combine(self.publicKey)
    }
}
