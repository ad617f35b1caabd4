public import WotsCrypto

/// A log's signing identity: a key name with an Ed25519 private key. Signs checkpoints and other notes.
///
/// Describes itself by name and key ID only.
public struct LogKey: Sendable, CustomStringConvertible {
    let privateKey: Ed25519PrivateKey
    /// The public half, as clients are configured with it.
    public let verifier: NoteVerifier

    /// The key name.
    public var name: String { self.verifier.name }

    /// The verifier key string clients trust: `NAME+KEYID+BASE64(0x01 || public key)`.
    public var verifierKey: String { self.verifier.verifierKey }

    /// Binds `privateKey` to `name`.
    /// - Throws: `invalid_key` for an empty name or one with a space, `+` or control character.
    public init(name: String, privateKey: Ed25519PrivateKey) throws {
        self.verifier = try NoteVerifier(name: name, publicKey: privateKey.publicKey)
        self.privateKey = privateKey
    }

    /// A fresh key under `name`.
    /// - Throws: `invalid_key` for an invalid name; `crypto_library` if OpenSSL fails.
    public static func generate(name: String) throws -> LogKey {
        try LogKey(name: name, privateKey: try Ed25519PrivateKey.generate())
    }

    /// This key's signature line over `text` (to add beside other signatures).
    /// - Throws: `crypto_library` if OpenSSL fails.
    public func signature(forText text: String) throws -> NoteSignature {
        let signature = try self.privateKey.signature(for: Array(text.utf8))
        return try NoteSignature(keyName: self.name, keyID: self.verifier.keyID, signature: signature)
    }

    /// `text` signed by this key alone.
    /// - Throws: `malformed` unless `text` is valid note text; `crypto_library` if OpenSSL
    ///   fails.
    public func sign(text: String) throws -> SignedNote {
        guard NoteRules.isValidText(text) else {
            throw Refuse.malformed("note text must end with a newline and hold no control character but newline")
        }
        return try SignedNote(text: text, signatures: [try self.signature(forText: text)])
    }

    public var description: String { "LogKey(\(self.name), Ed25519, key ID \(self.verifier.hexKeyID))" }
}
