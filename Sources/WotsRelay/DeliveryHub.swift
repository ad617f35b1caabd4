import Logging
import ServiceLifecycle
import Synchronization
import WotsCore
import WotsStorage

/// Wakes the WebSocket sessions of one recipient when mail arrives for them.
///
/// One subscriber to `MailArrived` on the bus (local appends, and other relay processes' through PostgreSQL)
/// dispatches to per-token wake-up streams, so a message costs one lookup, not one closure call per open socket.
/// Each wake-up stream buffers at most one signal: the session re-reads its mailbox from storage when woken, so
/// coalesced signals lose nothing.
final class DeliveryHub: Service, Sendable {
    private let bus: EventBus
    private let waiters = Mutex<[Token: [UInt64: AsyncStream<Void>.Continuation]]>([:])
    private let nextID = Atomic<UInt64>(0)

    init(bus: EventBus) { self.bus = bus }

    func run() async throws {
        let arrivals = self.bus.subscribe(to: MailArrived.self, bufferSize: 65_536)
        await withGracefulShutdownHandler {
            for await arrival in arrivals.cancelOnGracefulShutdown() {
                self.wake(arrival.recipient)
            }
        } onGracefulShutdown: {
        }
    }

    /// A stream that yields whenever `token` may have new mail; it ends when the returned handle is cancelled.
    func wakeups(for token: Token) -> (stream: AsyncStream<Void>, cancel: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = self.nextID.add(1, ordering: .relaxed).newValue
        self.waiters.withLock { $0[token, default: [:]][id] = continuation }
        let cancel: @Sendable () -> Void = { [weak self] in
            continuation.finish()
            self?.waiters.withLock { waiters in
                waiters[token]?[id] = nil
                if waiters[token]?.isEmpty == true { waiters[token] = nil }
            }
        }
        return (stream, cancel)
    }

    func wake(_ token: Token) {
        let continuations = self.waiters.withLock { $0[token].map { Array($0.values) } ?? [] }
        for continuation in continuations { continuation.yield() }
    }
}
