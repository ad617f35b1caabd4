import Synchronization
import WotsCore

/// Forwards directory changes to one WebSocket while it has asked for them.
final class DirectoryFeed: Sendable {
    private let bus: EventBus
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(bus: EventBus) { self.bus = bus }

    func start(writer: StreamWriter) {
        let changes = self.bus.subscribe(to: DirectoryChange.self)
        let forwarder = Task {
            for await change in changes {
                try? await writer.send(.directory(change: change.kind.rawValue, nickname: change.nickname))
            }
        }
        self.task.withLock { current in
            current?.cancel()
            current = forwarder
        }
    }

    func stop() {
        self.task.withLock { current in
            current?.cancel()
            current = nil
        }
    }
}
