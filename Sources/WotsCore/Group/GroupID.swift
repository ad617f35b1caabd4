/// A group's identity: 16 random bytes the creator drew, spelled as 32 lowercase hex digits.
public struct GroupID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public static let byteCount = 16

    public let bytes: [UInt8]

    /// - Throws: `WotsError.malformed` unless there are exactly 16 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw WotsError(.malformed, "a group id is 16 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses 32 hex digits.
    /// - Throws: `WotsError.malformed` naming the text.
    public init(hex: String) throws {
        guard let bytes = Hex.decode(hex), bytes.count == Self.byteCount else {
            throw WotsError(.malformed, "group id \"\(hex.prefix(40))\" is not 32 hex digits")
        }
        self.bytes = bytes
    }

    /// 32 lowercase hex digits, the wire spelling.
    public var description: String { Hex.encode(self.bytes) }

    public static func < (lhs: GroupID, rhs: GroupID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: any Decoder) throws {
        try self.init(hex: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}
