/// One signature line of a signed note: `— NAME BASE64(key ID || signature)`.
///
/// Parsing a note keeps every line, signed by a trusted key or not; only `SignedNote.verify(trusting:)` says which
/// ones count.
public struct NoteSignature: Sendable, Hashable {
    /// The signing key's name.
    public let keyName: String
    /// The key ID, the first four bytes of the decoded signature, big-endian.
    public let keyID: UInt32
    /// The signature bytes after the key ID (64 bytes for Ed25519; any non-empty length for keys we do not know).
    public let signature: [UInt8]

    /// A signature line's parts.
    /// - Throws: `malformed` for an invalid key name or an empty signature.
    public init(keyName: String, keyID: UInt32, signature: [UInt8]) throws {
        guard NoteRules.isValidKeyName(keyName) else {
            throw Refuse.malformed(
                "key name \"\(keyName.prefix(64))\" is empty or has a space, \"+\" or control character"
            )
        }
        guard !signature.isEmpty else { throw Refuse.malformed("the signature from \(keyName) is empty") }
        self.keyName = keyName
        self.keyID = keyID
        self.signature = signature
    }

    /// The line as it appears in the note, without its newline.
    public var line: String {
        let keyID = (0..<4).map { UInt8(truncatingIfNeeded: self.keyID >> (24 - 8 * $0)) }
        return "\(Self.prefix)\(self.keyName) \(StrictBase64.encode(keyID + self.signature))"
    }

    /// Em dash (U+2014) and space.
    static let prefix = "\u{2014} "

    /// Parses one signature line (without its newline) of a note already checked to be UTF-8 without controls.
    init(line: ArraySlice<UInt8>, number: Int) throws {
        guard line.starts(with: Self.prefix.utf8) else {
            throw Refuse.malformed("signature line \(number) does not start with an em dash (U+2014) and a space")
        }
        let rest = line.dropFirst(Self.prefix.utf8.count)
        guard let space = rest.firstIndex(of: UInt8(ascii: " ")) else {
            throw Refuse.malformed("signature line \(number) has no space between the key name and the signature")
        }
        let name = String(decoding: rest[..<space], as: UTF8.self)
        let base64 = String(decoding: rest[(space + 1)...], as: UTF8.self)
        guard let decoded = StrictBase64.decode(base64), decoded.count > 4 else {
            throw Refuse.malformed(
                "signature line \(number) does not end in canonical base64 of a key ID and signature"
            )
        }
        let keyID = decoded.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard NoteRules.isValidKeyName(name) else {
            throw Refuse.malformed(
                "signature line \(number) has an empty key name or one with a space, \"+\" or control"
            )
        }
        try self.init(keyName: name, keyID: keyID, signature: Array(decoded.dropFirst(4)))
    }
}
