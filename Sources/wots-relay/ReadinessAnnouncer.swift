import Logging
import Synchronization
import WotsRelayLaunch

/// Sends `READY=1` to the service manager once every listener of the relay is up (the database is prepared before
/// any of them opens), and `STOPPING=1` when shutdown begins. Without a notifier it does nothing.
final class ReadinessAnnouncer: Sendable {
    private let listenersToStart: Mutex<Int>
    private let notifier: SystemdNotifier?
    private let logger: Logger

    init(listeners: Int, notifier: SystemdNotifier?, logger: Logger) {
        self.listenersToStart = Mutex(listeners)
        self.notifier = notifier
        self.logger = logger
    }

    func listenerStarted() {
        let allStarted = self.listenersToStart.withLock { remaining in
            remaining -= 1
            return remaining == 0
        }
        if allStarted { self.send("READY=1") }
    }

    func stopping() {
        self.send("STOPPING=1")
    }

    private func send(_ state: String) {
        guard let notifier = self.notifier else { return }
        do {
            try notifier.notify(state)
        } catch {
            self.logger.warning("service manager not notified", metadata: ["state": "\(state)", "reason": "\(error)"])
        }
    }
}
