/// The stable id of an account: 128 random bits, spelled as 26 characters of lowercase base32.
public struct Token: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    /// Creates a token from its 16 raw bytes.
    /// - Throws: `WotsError.invalidToken` when there are not exactly 16 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 16 else {
            throw WotsError(.invalidToken, "a token is 16 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses the 26-character lowercase base32 spelling.
    /// - Throws: `WotsError.invalidToken` naming the rule the text broke.
    public init(_ text: String) throws {
        guard text.utf8.count == 26 else {
            throw WotsError(.invalidToken, "token \"\(text.prefix(40))\" is not 26 characters of lowercase base32")
        }
        guard let token = Self(base32UTF8: text.utf8) else {
            throw WotsError(.invalidToken, "token \"\(text)\" is not canonical lowercase base32 (a-z, 2-7)")
        }
        self = token
    }

    /// `init(_:)` from the text's UTF-8 bytes; nil for anything it refuses.
    package init?(base32UTF8 text: some Collection<UInt8>) {
        guard text.count == 26, let bytes = Base32.decode(utf8: text), bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The 26-character lowercase base32 spelling.
    public var description: String { Base32.encode(self.bytes) }

    public static func < (lhs: Token, rhs: Token) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// The 16 bytes in one call: an array's own hashing feeds the hasher a byte at a time, and tokens key the relay's
    /// per-message lookups.
    public func hash(into hasher: inout Hasher) {
        self.bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}
