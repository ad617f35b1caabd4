import Hummingbird
import NIOCore

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
                throw RelayError(.serviceUnavailable, "not_ready", "the database is not reachable")
            }
            return try JSONBody.response(["status": "ready"])
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: self.metrics.exposition()))
            )
        }
    }
}
