/// A transparency-log tree head as a client gossips it inside every message it sends: the tree size and its
/// RFC 9162 root hash, from the newest checkpoint the sender verified. JSON `{"size": N, "root": BASE64}`.
public struct LogHead: Sendable, Hashable, Codable {
    public var size: UInt64
    /// 32 bytes.
    public var root: [UInt8]

    /// - Throws: `malformed` for a root that is not 32 bytes.
    public init(size: UInt64, root: [UInt8]) throws {
        guard root.count == 32 else { throw WotsError(.malformed, "log root is \(root.count) bytes (must be 32)") }
        self.size = size
        self.root = root
    }

    private enum CodingKeys: String, CodingKey {
        case size, root
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(size: container.decode(UInt64.self, forKey: .size), root: container.decodeBase64(forKey: .root))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.size, forKey: .size)
        try container.encodeBase64(self.root, forKey: .root)
    }
}
