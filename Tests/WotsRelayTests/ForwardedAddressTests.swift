import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsRelay
import WotsTesting

/// Per-address registration limits over a real loopback socket, with and without a trusted proxy in front.
@Suite struct ForwardedAddressTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func registration(
        _ client: some TestClientProtocol,
        _ user: TestIdentity,
        forwardedFor: String
    ) async throws -> HTTPResponse.Status {
        let headers: HTTPFields = [.contentType: "application/json", Self.forwardedFor: forwardedFor]
        let body = try jsonBody(try await client.registrationRequest(for: user))
        return try await client.execute(uri: "/v1/register", method: .post, headers: headers, body: body) {
            $0.status
        }
    }

    func configuration(trusting ranges: [String]) throws -> RelayConfiguration {
        var configuration = RelayHarness.testConfiguration
        configuration.registrationRate = RateLimit(perSecond: 0.001, burst: 1)
        configuration.trustedProxies = TrustedProxies(ranges: try ranges.map { try AddressRange($0) })
        return configuration
    }

    @Test func behindATrustedProxyEachForwardedClientHasItsOwnLimit() async throws {
        let harness = try await RelayHarness.make(configuration: try self.configuration(trusting: ["127.0.0.0/8"]))
        try await harness.relay.buildApplication().test(.live) { client in
            let first = try await self.registration(client, TestIdentities.alice, forwardedFor: "203.0.113.7")
            let sameClient = try await self.registration(client, TestIdentities.bob, forwardedFor: "203.0.113.7")
            let otherClient = try await self.registration(
                client,
                TestIdentities.carol,
                forwardedFor: "203.0.113.7, 203.0.113.8"
            )
            #expect(first == .created)
            #expect(sameClient == .tooManyRequests)
            #expect(otherClient == .created, "the right-most untrusted hop counts, not a forged left part")
        }
    }

    @Test func anUntrustedPeerCannotChooseItsAddress() async throws {
        let harness = try await RelayHarness.make(configuration: try self.configuration(trusting: ["10.0.0.0/8"]))
        try await harness.relay.buildApplication().test(.live) { client in
            let first = try await self.registration(client, TestIdentities.alice, forwardedFor: "203.0.113.7")
            let second = try await self.registration(client, TestIdentities.bob, forwardedFor: "203.0.113.8")
            #expect(first == .created)
            #expect(second == .tooManyRequests, "the header of an untrusted peer is ignored")
        }
    }
}
