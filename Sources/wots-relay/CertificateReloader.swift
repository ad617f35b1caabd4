import Logging
import ServiceLifecycle
import UnixSignals
import WotsCore
import WotsRelay

/// Reads the TLS certificate and key again on each SIGHUP (after a renewal, for example). A pair that fails to load is
/// logged and the previous one stays in use. Without TLS there is nothing to reload, and SIGHUP (`systemctl reload`)
/// is logged rather than left to its default action, which would end the relay.
struct CertificateReloader: Service {
    let store: CertificateStore?
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            guard let store = self.store else {
                self.logger.notice("SIGHUP: nothing to reload (no --tls-cert); the relay keeps running")
                continue
            }
            do {
                let summary = try store.reload()
                self.logger.notice("TLS certificate reloaded", metadata: ["certificate": "\(summary)"])
            } catch let error as WotsError {
                self.logger.error(
                    "TLS certificate not reloaded; the previous one stays in use",
                    metadata: ["reason": "\(error.reason)", "certificate": "\(store.summary)"]
                )
            }
        }
    }
}
