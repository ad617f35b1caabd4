import Foundation

/// The reverse proxies whose `X-Forwarded-For` header the relay believes, to rate-limit the real client address.
///
/// A request from a peer outside every range is the client itself, whatever its headers say. From a trusted peer,
/// the header is read from the right (each proxy appends the address it saw): trusted hops are skipped and the
/// first address outside them is the client. An entry that is not an address ends the walk at the hop that wrote it.
public struct TrustedProxies: Sendable, Hashable {
    public var ranges: [AddressRange]

    /// No proxy is trusted: the peer address is the client. The default.
    public static let none = TrustedProxies(ranges: [])

    public init(ranges: [AddressRange]) {
        self.ranges = ranges
    }

    /// The client's address.
    /// - Parameters:
    ///   - peer: the TCP peer's address.
    ///   - forwardedFor: every `X-Forwarded-For` field value, in the order received.
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        var client = peer
        guard self.isTrusted(peer) else { return client }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard AddressRange.bytes(of: hop) != nil else { return client }
            client = hop
            if !self.isTrusted(hop) { return client }
        }
        return client
    }

    func isTrusted(_ address: String) -> Bool {
        guard let bytes = AddressRange.bytes(of: address) else { return false }
        return self.ranges.contains { $0.contains(bytes: bytes) }
    }
}
