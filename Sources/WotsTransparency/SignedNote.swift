import WotsCrypto

/// A C2SP signed note (https://c2sp.org/signed-note): text, a blank line, then one or more signature lines.
///
/// Parsing is strict and bounded: UTF-8 only, no control character but newline, at most 1 MiB and 100 signatures,
/// every signature line well formed and in canonical base64. Parsing checks no signature; `verify(trusting:)` does.
public struct SignedNote: Sendable, Hashable {
    /// Largest note accepted, in bytes: 1 MiB.
    public static let maximumByteCount = 1 << 20
    /// Most signature lines accepted in one note.
    public static let maximumSignatureCount = 100

    /// The signed text: every line ends with a newline, the last one included.
    public let text: String
    /// The signature lines, in the note's order.
    public let signatures: [NoteSignature]

    /// A note from its parts.
    /// - Throws: `malformed` unless the text is valid note text and there are 1–100 signatures.
    public init(text: String, signatures: [NoteSignature]) throws {
        guard NoteRules.isValidText(text) else {
            throw Refuse.malformed("note text must end with a newline and hold no control character but newline")
        }
        guard (1...Self.maximumSignatureCount).contains(signatures.count) else {
            throw Refuse.malformed("a note carries 1–\(Self.maximumSignatureCount) signatures, not \(signatures.count)")
        }
        self.text = text
        self.signatures = signatures
        guard self.serialized.count <= Self.maximumByteCount else {
            throw Refuse.malformed("the note would be larger than \(Self.maximumByteCount) bytes")
        }
    }

    /// Parses a note's bytes exactly as received.
    /// - Throws: `malformed` naming the first rule the bytes break.
    public init(parsing note: [UInt8]) throws {
        guard note.count <= Self.maximumByteCount else {
            throw Refuse.malformed("the note is \(note.count) bytes (at most \(Self.maximumByteCount))")
        }
        guard String(validating: note, as: UTF8.self) != nil else {
            throw Refuse.malformed("the note is not valid UTF-8")
        }
        if let control = note.firstIndex(where: { $0 < 0x20 && $0 != 0x0A }) {
            throw Refuse.malformed("the note has control character \(note[control]) at byte \(control)")
        }
        // The text ends at the last blank line (the text may hold blank lines; signature lines never do).
        guard let blank = note.indices.dropLast().last(where: { note[$0] == 0x0A && note[$0 + 1] == 0x0A }) else {
            throw Refuse.malformed("the note has no blank line between its text and its signatures")
        }
        let lines = note[(blank + 2)...]
        guard lines.last == 0x0A else {
            throw Refuse.malformed("the note does not end with a newline after signature lines")
        }
        let signatureLines = lines.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
        guard signatureLines.count <= Self.maximumSignatureCount else {
            throw Refuse.malformed("the note has more than \(Self.maximumSignatureCount) signature lines")
        }
        self.signatures = try signatureLines.enumerated().map { number, line in
            try NoteSignature(line: line, number: number + 1)
        }
        self.text = String(decoding: note[...blank], as: UTF8.self)
    }

    /// Parses a note given as a string; see `init(parsing:)` for bytes.
    public init(parsing note: String) throws {
        try self.init(parsing: Array(note.utf8))
    }

    /// The note as sent: text, blank line, one line per signature.
    public var serialized: [UInt8] { Array(self.formatted.utf8) }

    /// The note as text.
    public var formatted: String {
        self.text + "\n" + self.signatures.map { $0.line + "\n" }.joined()
    }
}

extension SignedNote {
    /// Checks the note against the keys the caller trusts, following C2SP signed-note.
    ///
    /// Signatures whose key name and key ID do not both match a trusted key are ignored (other logs, witnesses,
    /// rotated keys). Every signature that does match must verify, and a trusted key may sign only once.
    /// - Returns: the trusted keys whose signatures verified, in note order; never empty.
    /// - Throws: `bad_signature` if a trusted key's signature does not verify; `.malformed` if a
    ///   trusted key signed twice; `unverified_note` if no trusted key signed.
    @discardableResult
    public func verify(trusting verifiers: [NoteVerifier]) throws -> [NoteVerifier] {
        let message = Array(self.text.utf8)
        var verified: [NoteVerifier] = []
        for signature in self.signatures {
            guard let verifier = verifiers.first(where: { $0.signs(as: signature) }) else { continue }
            guard !verified.contains(where: { $0.signs(as: signature) }) else {
                throw Refuse.malformed("trusted key \(verifier.name) signed the note more than once")
            }
            guard verifier.publicKey.isValidSignature(signature.signature, for: message) else {
                throw Refuse.badSignature("the signature by trusted key \(verifier.name) does not verify")
            }
            verified.append(verifier)
        }
        guard !verified.isEmpty else {
            let names = verifiers.map(\.name).joined(separator: ", ")
            throw Refuse.unverified("the note carries no signature from a trusted key (\(names))")
        }
        return verified
    }

    /// Checks the note against one trusted key; see `verify(trusting:)`.
    public func verify(trusting verifier: NoteVerifier) throws {
        try self.verify(trusting: [verifier])
    }
}
