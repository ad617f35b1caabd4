import CoreMetrics
import Hummingbird
import NIOCore
import WotsCore
import WotsStorage

/// `/healthz` (the process answers), `/readyz` (the database answers) and `/metrics` (Prometheus text).
struct HealthRoutes: Sendable {
    let storage: RelayStorage
    let metrics: RelayMetrics

    func register(on router: Router<RelayRequestContext>) {
        router.get("/healthz") { _, _ in
            try JSONBody.response(["status": "ok"])
        }
        router.get("/readyz") { _, _ in
            do {
                try await self.storage.checkReadiness()
            } catch {
                throw WotsError(.notReady, "the database is not reachable")
            }
            return try JSONBody.response(["status": "ready"])
        }
        router.get("/metrics") { _, _ in
            // Mailbox totals are read at scrape time; a database hiccup leaves the previous values.
            if let statistics = try? await self.storage.mailboxes.statistics() {
                self.metrics.mailboxWaiting.record(statistics.waiting)
                self.metrics.mailboxDeepest.record(statistics.deepest)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: self.metrics.exposition()))
            )
        }
    }
}
