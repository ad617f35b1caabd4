/// The human name of an account: 3–32 characters of `a-z 0-9 _ . -` (ASCII letters in either case, lower-cased),
/// starting with a letter or digit; unique ignoring case.
///
/// The first character rule keeps names readable and out of the way of command-line options (`-dash`) and of names
/// made only of punctuation (`...`). Relay and client share this type, so both refuse the same names with the same
/// words.
public struct Nickname: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public static let allowedLength = 3...32
    /// The rules in one phrase, for messages and help.
    public static let rules = "3–32 characters of a-z 0-9 _ . -, starting with a letter or digit"

    /// The lower-cased spelling, which is also the uniqueness key.
    public let value: String

    /// Lower-cases and validates a nickname.
    /// - Throws: `WotsError.invalidNickname` naming the value and the rule it breaks; a character that is not allowed
    ///   is named readably, `"😀" (U+1F600)`, or by its code alone when it cannot be shown (`U+0007`).
    public init(_ text: String) throws {
        let scalars = text.unicodeScalars
        guard Self.allowedLength.contains(scalars.count) else {
            let size = scalars.count < Self.allowedLength.lowerBound ? "too short" : "too long"
            throw WotsError(.invalidNickname, "nickname \(Self.quoted(text)) is \(size) (3–32 characters)")
        }
        // Checked before lower-casing: non-ASCII letters such as the Kelvin sign (U+212A) lower-case to ASCII ones.
        if let bad = scalars.first(where: { !Self.isAllowed($0) }) {
            throw WotsError(
                .invalidNickname,
                "nickname \(Self.quoted(text)) contains \(Self.name(of: bad)) (allowed: a-z 0-9 _ . -)"
            )
        }
        guard let first = scalars.first, Self.isLetterOrDigit(first) else {
            throw WotsError(
                .invalidNickname,
                "nickname \(Self.quoted(text)) must start with a letter or digit (a-z, 0-9)"
            )
        }
        self.value = text.lowercased()
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        Self.isLetterOrDigit(scalar) || scalar == "_" || scalar == "." || scalar == "-"
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        default: false
        }
    }

    /// `"😀" (U+1F600)` for a character that can be shown, `a space (U+0020)` for a space, the code alone for one that
    /// cannot be shown (`U+0007`).
    static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        if scalar.properties.generalCategory == .spaceSeparator { return "a space (\(code))" }
        return Self.isShowable(scalar) ? "\"\(scalar)\" (\(code))" : code
    }

    /// The given text in quotes, at most 40 characters, with what cannot be shown replaced by `?` (no terminal escapes
    /// in error messages).
    static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(40).map { Self.isShowable($0) || $0 == " " ? Character($0) : "?" }
        return "\"" + String(shown) + (text.unicodeScalars.count > 40 ? "…" : "") + "\""
    }

    private static func isShowable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .spaceSeparator, .lineSeparator,
            .paragraphSeparator:
            false
        default:
            true
        }
    }

    public var description: String { self.value }

    public static func < (lhs: Nickname, rhs: Nickname) -> Bool { lhs.value < rhs.value }

    /// Reads a nickname that may have been registered before names had to start with a letter or digit (`...`,
    /// `_x`): the other rules hold, the first character is not checked. For lookups, storage and the wire; a name
    /// being registered goes through `init(_:)`.
    /// - Throws: `WotsError.invalidNickname` as `init(_:)` does, but for the first-character rule.
    public init(naming text: String) throws {
        let scalars = text.unicodeScalars
        if Self.allowedLength.contains(scalars.count), scalars.allSatisfy(Self.isAllowed) {
            self.init(validated: text.lowercased())
        } else {
            try self.init(text)
        }
    }

    private init(validated value: String) { self.value = value }

    /// Decodes with `init(naming:)`, so a directory holding a name from before the first-character rule still reads.
    public init(from decoder: any Decoder) throws {
        try self.init(naming: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.value)
    }
}
