import Logging
import ServiceLifecycle
import WotsCore
import WotsStorage

/// Probes the database on a timer so the relay sees an outage begin and end without waiting for traffic: every
/// `healthyInterval` while all is well, every `recoveryInterval` while the database is unavailable or short of
/// space. While it runs, operations on an unavailable database fail at once (`storage_unavailable`), and the first
/// successful probe lets them through again.
struct HealthMonitor: Service {
    let storage: RelayStorage
    let healthyInterval: Duration
    let recoveryInterval: Duration
    let clock: RelayClock
    let logger: Logger

    func run() async throws {
        self.storage.health.failFast(true)
        defer { self.storage.health.failFast(false) }
        await cancelWhenGracefulShutdown {
            var wasHealthy = true
            while !Task.isCancelled {
                try? await self.storage.probe()
                let condition = self.storage.health.condition
                let isHealthy = condition == .healthy
                if isHealthy != wasHealthy {
                    self.report(condition)
                    wasHealthy = isHealthy
                }
                let pause = isHealthy ? self.healthyInterval : self.recoveryInterval
                // An operation that finds the database gone cuts a healthy pause short.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await self.clock.sleep(pause) }
                    if isHealthy { group.addTask { await self.storage.health.trouble.wait() } }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    private func report(_ condition: StorageHealth.Condition) {
        switch condition {
        case .healthy: self.logger.notice("database healthy again")
        case .unavailable(let reason): self.logger.error("database unavailable", metadata: ["reason": "\(reason)"])
        case .shortOfSpace(let reason):
            self.logger.warning("database short of space", metadata: ["reason": "\(reason)"])
        }
    }
}
