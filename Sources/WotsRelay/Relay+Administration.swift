public import Hummingbird
public import NIOCore
public import ServiceLifecycle

/// The operator's address: `/metrics` (which shows who is online, so never on the public address) beside the
/// `/healthz` and `/readyz` probes.
extension Relay {
    var healthRoutes: HealthRoutes { HealthRoutes(storage: self.storage, metrics: self.metrics) }

    /// The administration routes alone, for route tests.
    public func buildAdministrationRouter() -> Router<RelayRequestContext> {
        let router = Router(context: RelayRequestContext.self)
        router.add(middleware: ErrorMiddleware(metrics: self.metrics))
        self.healthRoutes.registerProbes(on: router)
        self.healthRoutes.registerMetrics(on: router)
        return router
    }

    /// The administration application, plain HTTP, to run as a service beside the relay's application.
    /// - Parameters:
    ///   - host: address to listen on; keep it on loopback or a private network.
    ///   - port: port to listen on; 0 picks a free one.
    ///   - onServerRunning: called with the listening channel.
    public func buildAdministrationApplication(
        host: String,
        port: Int,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol & Service {
        Application(
            router: self.buildAdministrationRouter(),
            configuration: .init(address: .hostname(host, port: port), serverName: "wots-relay-admin"),
            onServerRunning: onServerRunning,
            logger: self.logger
        )
    }

    /// The Prometheus text of every metric, as `/metrics` on the administration address serves it.
    public func scrapeMetrics() async -> String {
        await self.healthRoutes.scrape()
    }
}
