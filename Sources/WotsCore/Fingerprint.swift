/// SHA-256 over both public keys' SPKI DER (signing first): 32 bytes, shown as 16 groups of 4 hex digits.
///
/// Computed by `WotsCrypto`; this type only holds and spells the digest.
public struct Fingerprint: Sendable, Hashable, Codable, CustomStringConvertible {
    public static let byteCount = 32

    public let bytes: [UInt8]

    /// - Throws: `WotsError.invalidFingerprint` unless there are exactly 32 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw WotsError(.invalidFingerprint, "a fingerprint is 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses 64 hex digits, with or without the spaces of the grouped spelling.
    public init(hex: String) throws {
        guard let fingerprint = Self(hexUTF8: hex.utf8) else {
            throw WotsError(.invalidFingerprint, "fingerprint \"\(hex.prefix(80))\" is not 64 hex digits")
        }
        self = fingerprint
    }

    /// `init(hex:)` from the text's UTF-8 bytes, byte by byte: the relay reads two fingerprints in every envelope, and
    /// filtering the spaces out of a `String` went character by character.
    package init?(hexUTF8: some Sequence<UInt8>) {
        guard let bytes = Hex.decode(digits: hexUTF8.lazy.filter { $0 != UInt8(ascii: " ") }),
            bytes.count == Self.byteCount
        else { return nil }
        self.bytes = bytes
    }

    /// 64 lowercase hex digits without spaces, the wire spelling.
    public var hex: String { Hex.encode(self.bytes) }

    /// 16 groups of 4 hex digits separated by spaces, the spelling people compare.
    public var grouped: String {
        let hex = Array(self.hex)
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<$0 + 4]) }.joined(separator: " ")
    }

    public var description: String { self.grouped }

    public init(from decoder: any Decoder) throws {
        try self.init(hex: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.hex)
    }
}
