public import WotsCore

/// The number two users compare, out of band, to know they hold each other's real keys.
///
/// SHA-512(`"wots-safety-number-v1\0"` || the two fingerprints, smaller first bytewise); the first 60 bytes, read as
/// twelve 5-byte big-endian integers, each reduced modulo 100,000: twelve groups of five decimal digits.
/// Symmetric (A with B reads as B with A) and changes when either user's keys change.
public struct SafetyNumber: Sendable, Hashable, CustomStringConvertible {
    public static let label: [UInt8] = Array("wots-safety-number-v1".utf8) + [0]
    public static let groupCount = 12

    /// The twelve groups of five digits.
    public let groups: [String]

    /// The safety number of the two users whose keys have these fingerprints, in either order.
    public init(_ first: Fingerprint, _ second: Fingerprint) {
        let (low, high) =
            first.bytes.lexicographicallyPrecedes(second.bytes)
            ? (first.bytes, second.bytes) : (second.bytes, first.bytes)
        let digest = Digest.sha512(Self.label + low + high)
        self.groups = (0..<Self.groupCount).map { group in
            let value = digest[group * 5..<group * 5 + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let digits = String(value % 100_000)
            return String(repeating: "0", count: 5 - digits.count) + digits
        }
    }

    /// The safety number of two users' public keys.
    public init(_ first: PublicKeys, _ second: PublicKeys) {
        self.init(first.fingerprint, second.fingerprint)
    }

    /// 60 digits without spaces.
    public var digits: String { self.groups.joined() }

    /// Twelve groups of five digits separated by spaces.
    public var description: String { self.groups.joined(separator: " ") }
}
