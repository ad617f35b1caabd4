import Foundation
import WotsCore

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is a network of one.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16), host bits cleared.
    let network: [UInt8]
    let prefixLength: Int

    /// - Throws: `invalid_argument` naming the text and the expected form.
    public init(_ text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(of: String(parts[0])) else {
            throw WotsError(
                .invalidArgument,
                "\"\(text.prefix(60))\" is not an IP address or CIDR range (as 10.0.0.0/8)"
            )
        }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed) else {
                throw WotsError(
                    .invalidArgument,
                    "CIDR range \"\(text.prefix(60))\" needs a prefix length in 0–\(bits)"
                )
            }
            length = parsed
        }
        self.network = Self.masked(address, prefixLength: length)
        self.prefixLength = length
    }

    /// Whether `address` (text, as NIO or a proxy writes it) lies in this range. IPv4-mapped IPv6 addresses
    /// (`::ffff:192.0.2.1`) count as their IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return self.contains(bytes: bytes)
    }

    func contains(bytes: [UInt8]) -> Bool {
        bytes.count == self.network.count && Self.masked(bytes, prefixLength: self.prefixLength) == self.network
    }

    public var description: String {
        let family = self.network.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = self.network.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            + "/\(self.prefixLength)"
    }

    /// The 4 or 16 bytes of an address; an IPv4-mapped IPv6 address gives its 4 IPv4 bytes. Nil for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var v4 = in_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, trimmed, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
    }

    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xFF >> kept)
        }
    }
}
