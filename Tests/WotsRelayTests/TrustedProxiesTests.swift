import Testing
import WotsCore
import WotsRelay

/// Which address rate limits count: the peer, or what a trusted reverse proxy says in `X-Forwarded-For`.
@Suite struct TrustedProxiesTests {
    let proxies = TrustedProxies(ranges: [try! AddressRange("10.0.0.0/8"), try! AddressRange("fd00::/8")])

    @Test func rangesMatchTheirNetworkOnly() throws {
        let range = try AddressRange("192.168.4.0/22")
        #expect(range.contains("192.168.7.255"))
        #expect(!range.contains("192.168.8.0"))
        #expect(try AddressRange("2001:db8::1").contains("2001:db8:0:0::1"))
        #expect(!(try AddressRange("2001:db8::1")).contains("2001:db8::2"))
        #expect(try AddressRange("127.0.0.0/8").contains("::ffff:127.0.0.9"), "an IPv4-mapped peer is IPv4")
        #expect(range.description == "192.168.4.0/22")
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0", "proxy.example", "fd00::/129", ""])
    func malformedRangesAreRefusedNamingTheText(_ text: String) {
        #expect(throws: WotsError.self) { try AddressRange(text) }
    }

    @Test func anUntrustedPeerIsTheClientWhateverItForwards() {
        #expect(self.proxies.clientAddress(peer: "203.0.113.5", forwardedFor: ["198.51.100.1"]) == "203.0.113.5")
    }

    @Test func theRightMostUntrustedHopIsTheClient() {
        let forwarded = ["198.51.100.1, 203.0.113.9", "10.1.1.1"]
        #expect(self.proxies.clientAddress(peer: "10.0.0.2", forwardedFor: forwarded) == "203.0.113.9")
    }

    @Test func aForgedLeftMostEntryIsIgnored() {
        let forwarded = ["1.2.3.4, 203.0.113.9"]
        #expect(self.proxies.clientAddress(peer: "fd00::7", forwardedFor: forwarded) == "203.0.113.9")
    }

    @Test func onlyTrustedHopsLeaveTheLeftMostOne() {
        #expect(self.proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["10.9.9.9, 10.1.1.1"]) == "10.9.9.9")
    }

    @Test func aTrustedPeerWithoutTheHeaderIsTheClient() {
        #expect(self.proxies.clientAddress(peer: "10.0.0.2", forwardedFor: []) == "10.0.0.2")
    }

    @Test func aGarbledEntryStopsAtTheHopThatWroteIt() {
        let forwarded = ["203.0.113.9, unknown, 10.1.1.1"]
        #expect(self.proxies.clientAddress(peer: "10.0.0.2", forwardedFor: forwarded) == "10.1.1.1")
    }
}
