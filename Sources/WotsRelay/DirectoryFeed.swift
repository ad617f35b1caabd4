import Synchronization
import WotsCore

/// Forwards directory changes to one WebSocket while it has asked for them, until its socket ends.
final class DirectoryFeed: Sendable {
    private struct State {
        var forwarder: Task<Void, Never>?
        var hasEnded = false
    }

    private let bus: EventBus
    private let state = Mutex(State())

    init(bus: EventBus) { self.bus = bus }

    /// Starts forwarding, unless the socket ended: a `subscribe` frame answered after that starts nothing.
    func start(writer: StreamWriter) {
        self.state.withLock { state in
            guard !state.hasEnded else { return }
            state.forwarder?.cancel()
            let changes = self.bus.subscribe(to: DirectoryChange.self)
            state.forwarder = Task {
                for await change in changes {
                    try? await writer.send(.directory(change: change.kind.rawValue, nickname: change.nickname))
                }
            }
        }
    }

    func stop() {
        self.state.withLock { state in
            state.forwarder?.cancel()
            state.forwarder = nil
        }
    }

    /// The socket ended: forwarding stops for good.
    func end() {
        self.state.withLock { state in
            state.hasEnded = true
            state.forwarder?.cancel()
            state.forwarder = nil
        }
    }
}
