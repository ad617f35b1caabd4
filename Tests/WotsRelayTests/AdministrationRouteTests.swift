import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WotsRelay
import WotsTesting

/// `/metrics` shows who is online, so only the operator's address serves it; load balancers probe either address.
@Suite struct AdministrationRouteTests {
    @Test func metricsAreNotOnThePublicAddress() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let metrics = try await client.request("/metrics", method: .get)
            #expect(metrics.status == .notFound)
            #expect(try await client.request("/healthz", method: .get).status == .ok)
            #expect(try await client.request("/readyz", method: .get).status == .ok)
        }
    }

    @Test func theAdministrationAddressServesMetricsAndProbes() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            _ = try await client.register(TestIdentities.alice)
        }
        let administration = Application(router: harness.relay.buildAdministrationRouter())
        try await administration.test(.router) { client in
            let metrics = try await client.request("/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(String(buffer: metrics.body).contains("wots_registrations_total 1"))
            #expect(try await client.request("/healthz", method: .get).status == .ok)
            #expect(try await client.request("/readyz", method: .get).status == .ok)
        }
    }

    @Test func theAdministrationApplicationListensOnItsOwnPort() async throws {
        let harness = try await RelayHarness.make()
        let administration = harness.relay.buildAdministrationApplication(host: "127.0.0.1", port: 0)
        try await administration.test(.live) { client in
            let metrics = try await client.request("/metrics", method: .get)
            #expect(metrics.status == .ok)
        }
    }
}
