/// The character rules of C2SP signed notes, shared by notes, signatures, verifier keys and checkpoints.
enum NoteRules {
    /// Longest key name accepted, in UTF-8 bytes; real names are short schema-less URLs.
    static let maximumKeyNameByteCount = 1024

    /// A key name is non-empty and has no Unicode space, no plus sign and no control character (C2SP signed-note).
    static func isValidKeyName(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.count <= Self.maximumKeyNameByteCount
            && name.unicodeScalars.allSatisfy { scalar in
                !scalar.properties.isWhitespace && scalar != "+" && !Self.isControl(scalar)
            }
    }

    /// A line of note text: no newline and no other control character below U+0020. May be empty.
    static func isValidLine(_ line: some StringProtocol) -> Bool {
        line.unicodeScalars.allSatisfy { !Self.isControl($0) && $0 != "\n" }
    }

    /// Note text: ends with a newline and has no control character other than newline.
    static func isValidText(_ text: String) -> Bool {
        text.utf8.last == 0x0A && text.unicodeScalars.allSatisfy { $0 == "\n" || !Self.isControl($0) }
    }

    /// The ASCII control characters signed notes forbid (except newline): those below U+0020.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20
    }

    /// Names, origins and texts are matched byte for byte: Swift's `==` on strings treats canonically equivalent
    /// spellings as equal, which a signature over bytes does not.
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8)
    }
}
