/// The scrypt salt and cost stored beside a sealed private record, so the same secret derives the same keys later.
public struct KeyDerivationParameters: Sendable, Hashable, Codable {
    /// Default cost: N = 2^15, r = 8, p = 1 (32 MiB of memory).
    public static let defaultCost = (n: UInt64(1) << 15, r: UInt32(8), p: UInt32(1))

    public var salt: [UInt8]
    /// CPU/memory cost, a power of two.
    public var n: UInt64
    public var r: UInt32
    public var p: UInt32

    public init(
        salt: [UInt8],
        n: UInt64 = Self.defaultCost.n,
        r: UInt32 = Self.defaultCost.r,
        p: UInt32 = Self.defaultCost.p
    ) {
        self.salt = salt
        self.n = n
        self.r = r
        self.p = p
    }

    private enum CodingKeys: String, CodingKey {
        case salt, n, r, p
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.salt = try container.decodeBase64(forKey: .salt)
        self.n = try container.decode(UInt64.self, forKey: .n)
        self.r = try container.decode(UInt32.self, forKey: .r)
        self.p = try container.decode(UInt32.self, forKey: .p)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64(self.salt, forKey: .salt)
        try container.encode(self.n, forKey: .n)
        try container.encode(self.r, forKey: .r)
        try container.encode(self.p, forKey: .p)
    }
}
