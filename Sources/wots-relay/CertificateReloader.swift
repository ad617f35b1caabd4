import Logging
import ServiceLifecycle
import UnixSignals
import WotsCore
import WotsRelay

/// Reads the TLS certificate and key again on each SIGHUP (after a renewal, for example). A pair that fails to load is
/// logged and the previous one stays in use.
struct CertificateReloader: Service {
    let store: CertificateStore
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            do {
                let summary = try self.store.reload()
                self.logger.notice("TLS certificate reloaded", metadata: ["certificate": "\(summary)"])
            } catch let error as WotsError {
                self.logger.error(
                    "TLS certificate not reloaded; the previous one stays in use",
                    metadata: ["reason": "\(error.reason)", "certificate": "\(self.store.summary)"]
                )
            }
        }
    }
}
