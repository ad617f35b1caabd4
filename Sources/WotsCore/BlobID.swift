/// The id of an uploaded attachment blob: 128 random bits chosen by the relay, spelled as 26 characters of lowercase
/// base32 like a token.
public struct BlobID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    /// Creates an id from its 16 raw bytes.
    /// - Throws: `WotsError.unknownBlob` when there are not exactly 16 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 16 else {
            throw WotsError(.unknownBlob, "a blob id is 16 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses the 26-character lowercase base32 spelling.
    /// - Throws: `WotsError.unknownBlob`: an id that cannot be one names no blob.
    public init(_ text: String) throws {
        guard text.utf8.count == 26, let bytes = Base32.decode(text), bytes.count == 16 else {
            throw WotsError(.unknownBlob, "blob id \"\(text.prefix(40))\" is not 26 characters of lowercase base32")
        }
        self.bytes = bytes
    }

    /// The 26-character lowercase base32 spelling.
    public var description: String { Base32.encode(self.bytes) }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}
