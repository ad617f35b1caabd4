import Foundation
import Logging
import ServiceLifecycle
import WotsStorage

/// Periodically removes expired challenges and sessions, and messages older than the retention period.
struct Sweeper: Service {
    let storage: RelayStorage
    let configuration: RelayConfiguration
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await Task.sleep(for: self.configuration.sweepInterval)
                    await self.sweepOnce()
                }
            }
        } catch is CancellationError {
            return
        }
    }

    func sweepOnce(now: Date = Date()) async {
        do {
            let expired = try await self.storage.authentication.sweepExpired(now: now)
            let cutoff = now.addingTimeInterval(-self.configuration.messageRetention.seconds)
            let old = try await self.storage.mailboxes.sweep(receivedBefore: cutoff)
            let forgotten = try await self.storage.mailboxes.forgetAcknowledgements(
                before: now.addingTimeInterval(-self.configuration.acknowledgementMemory.seconds)
            )
            if expired + old + forgotten > 0 {
                self.logger.info(
                    "swept",
                    metadata: [
                        "authentication": "\(expired)", "messages": "\(old)", "acknowledgements": "\(forgotten)",
                    ]
                )
            }
        } catch {
            self.logger.warning("sweep failed", metadata: ["error": "\(error)"])
        }
    }
}
