import CoreMetrics
import Hummingbird
import NIOCore
import WotsCore
import WotsStorage

/// `/healthz` (the process answers), `/readyz` (the database answers) and `/metrics` (Prometheus text). The probes
/// are on the public and the administration address; the metrics only on the administration address.
struct HealthRoutes: Sendable {
    let storage: RelayStorage
    let metrics: RelayMetrics

    /// Ready means the database answers, takes writes and has room. During a known outage the answer is immediate
    /// (the health monitor keeps probing); otherwise a probe runs now, within the database's operation deadline.
    func checkReadiness() async throws {
        if case .unavailable(let reason) = self.storage.health.condition {
            throw WotsError(.notReady, "not ready: \(reason)")
        }
        do {
            try await self.storage.probe()
        } catch {
            throw WotsError(.notReady, "not ready: \(Self.reason(error))")
        }
        if case .shortOfSpace(let reason) = self.storage.health.condition {
            throw WotsError(.notReady, "not ready: \(reason)")
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? WotsError)?.reason ?? "the database did not answer"
    }

    /// `/healthz` and `/readyz`.
    func registerProbes(on router: Router<RelayRequestContext>) {
        router.get("/healthz") { _, _ in
            try JSONBody.response(["status": "ok"])
        }
        router.get("/readyz") { _, _ in
            try await self.checkReadiness()
            return try JSONBody.response(["status": "ready"])
        }
    }

    /// `/metrics`.
    func registerMetrics(on router: Router<RelayRequestContext>) {
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: await self.scrape()))
            )
        }
    }

    /// The Prometheus exposition, with mailbox totals read now; a database hiccup leaves the previous values.
    func scrape() async -> String {
        if let statistics = try? await self.storage.mailboxes.statistics() {
            self.metrics.mailboxWaiting.record(statistics.waiting)
            self.metrics.mailboxDeepest.record(statistics.deepest)
            self.metrics.expiryNotices.record(statistics.expiryNotices)
            if let keyFilter = statistics.keyFilter { self.metrics.record(keyFilter) }
        }
        return self.metrics.exposition()
    }
}
