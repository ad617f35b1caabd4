/// A C2SP transparency log checkpoint (https://c2sp.org/tlog-checkpoint): the note text that states a log's tree
/// head.
///
/// ```
/// origin
/// tree size in decimal
/// base64 root hash
/// extension lines (optional, each non-empty)
/// ```
///
/// Every line ends with a newline. Parsing accepts exactly what `text` writes, and nothing else.
public struct Checkpoint: Sendable, Hashable {
    /// The log's identity, normally its key name (`example.com/log`).
    public let origin: String
    /// Number of leaves.
    public let size: UInt64
    /// The RFC 9162 tree head at `size`.
    public let rootHash: MerkleHash
    /// Opaque extra lines, each non-empty; usually none.
    public let extensions: [String]

    /// A checkpoint from its parts.
    /// - Throws: `malformed` for an empty origin or extension line, or one with a control character.
    public init(origin: String, size: UInt64, rootHash: MerkleHash, extensions: [String] = []) throws {
        guard !origin.isEmpty, NoteRules.isValidLine(origin) else {
            throw Refuse.malformed("checkpoint origin must be one non-empty line without control characters")
        }
        guard extensions.allSatisfy({ !$0.isEmpty && NoteRules.isValidLine($0) }) else {
            throw Refuse.malformed("checkpoint extension lines must be non-empty and hold no control characters")
        }
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// Parses checkpoint note text (the text of a signed note, without signatures).
    /// - Throws: `malformed` naming the first line that breaks the format.
    public init(text: String) throws {
        guard text.utf8.count <= SignedNote.maximumByteCount, text.utf8.last == 0x0A else {
            throw Refuse.malformed("checkpoint text must end with a newline and be at most 1 MiB")
        }
        let lines = text.utf8.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(Substring($0))
        }
        guard lines.count >= 3 else {
            throw Refuse.malformed("a checkpoint has at least 3 lines (origin, size, root hash), not \(lines.count)")
        }
        guard let size = Self.parseSize(lines[1]) else {
            throw Refuse.malformed("checkpoint size \"\(lines[1].prefix(32))\" is not a decimal without leading zeros")
        }
        let rootHash: MerkleHash
        do {
            rootHash = try MerkleHash(base64: lines[2])
        } catch {
            throw Refuse.malformed("checkpoint root hash \"\(lines[2].prefix(64))\" is not base64 of 32 bytes")
        }
        try self.init(origin: lines[0], size: size, rootHash: rootHash, extensions: Array(lines[3...]))
    }

    /// The note text: origin, size, root hash and extension lines, each ending with a newline.
    public var text: String {
        ([self.origin, String(self.size), self.rootHash.base64] + self.extensions).map { $0 + "\n" }.joined()
    }

    /// Decimal digits, no sign, no leading zero except for 0 itself, at most 2^64 − 1.
    private static func parseSize(_ line: String) -> UInt64? {
        let digits = line.utf8
        guard (1...20).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard digits.first != 0x30 || digits.count == 1 else { return nil }
        return UInt64(line)
    }
}

extension Checkpoint {
    /// Parses a signed checkpoint note, verifies it against the trusted keys and checks it comes from `origin`.
    /// - Throws: `malformed` for a note or checkpoint that breaks the format; `.badSignature` or
    ///   `unverified_note` as `SignedNote.verify(trusting:)`; `.wrongLogOrigin` for another log's checkpoint.
    public init(verifyingNote note: [UInt8], origin: String, verifiers: [NoteVerifier]) throws {
        let signed = try SignedNote(parsing: note)
        try signed.verify(trusting: verifiers)
        let checkpoint = try Checkpoint(text: signed.text)
        guard NoteRules.sameBytes(checkpoint.origin, origin) else {
            throw Refuse.wrongOrigin("the checkpoint is from \"\(checkpoint.origin.prefix(64))\", not \"\(origin)\"")
        }
        self = checkpoint
    }

    /// This checkpoint as a note signed by `key`, whose name must be the origin (as C2SP tlog-checkpoint advises).
    /// - Throws: `invalid_key` if the key's name is not the origin; `crypto_library` if
    ///   OpenSSL fails.
    public func signed(with key: LogKey) throws -> SignedNote {
        guard NoteRules.sameBytes(key.name, self.origin) else {
            throw Refuse.invalidKey("log key \(key.name) may only sign checkpoints with origin \(key.name)")
        }
        return try key.sign(text: self.text)
    }
}
