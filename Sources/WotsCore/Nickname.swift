/// The human name of an account: 3–32 characters of `a-z 0-9 _ . -` after lower-casing, unique ignoring case.
public struct Nickname: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public static let allowedLength = 3...32

    /// The lower-cased spelling, which is also the uniqueness key.
    public let value: String

    /// Lower-cases and validates a nickname.
    /// - Throws: `WotsError.invalidNickname` with the rule that was broken.
    public init(_ text: String) throws {
        let lowered = text.lowercased()
        let count = lowered.unicodeScalars.count
        guard Self.allowedLength.contains(count) else {
            let size = count < Self.allowedLength.lowerBound ? "too short" : "too long"
            throw WotsError(
                .invalidNickname,
                "nickname \"\(text.prefix(40))\" is \(size) (3–32 characters)"
            )
        }
        if let bad = lowered.unicodeScalars.first(where: { !Self.isAllowed($0) }) {
            throw WotsError(
                .invalidNickname,
                "nickname \"\(text)\" contains \"\(bad.escaped(asASCII: true))\" (allowed: a-z 0-9 _ . -)"
            )
        }
        self.value = lowered
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "0"..."9", "_", ".", "-": true
        default: false
        }
    }

    public var description: String { self.value }

    public static func < (lhs: Nickname, rhs: Nickname) -> Bool { lhs.value < rhs.value }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.value)
    }
}
