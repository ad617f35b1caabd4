import Logging
import ServiceLifecycle
import Synchronization
import WotsCore
import WotsStorage

/// Wakes the WebSocket sessions of one recipient when mail arrives for them.
///
/// Mail stored by this process is handed to the couriers directly (`deliver`); mail other relay processes stored
/// arrives as `MailArrived` on the bus (PostgreSQL `LISTEN/NOTIFY`) and wakes the couriers of that token, so a message costs one lookup, not one closure call per open socket.
/// A woken courier re-reads its mailbox from storage, so coalesced signals lose nothing.
///
/// Timed work over every socket (resyncs; pings when `pingInterval` is set) runs on one relay-wide timer that
/// visits a slice of the sockets per tick, rather than on a sleeping task per socket.
final class DeliveryHub: Service, Sendable {
    static let slices: UInt64 = 30

    private let bus: EventBus
    private let pingInterval: Duration?
    private let couriers = Mutex<[Token: [UInt64: MailCourier]]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let resyncTimer = Mutex<Task<Void, Never>?>(nil)

    /// - Parameter pingInterval: when set, the hub pings every socket this often (for servers that turn off
    ///   HummingbirdWebSocket's per-socket auto-ping).
    init(bus: EventBus, pingInterval: Duration? = nil) {
        self.bus = bus
        self.pingInterval = pingInterval
    }

    func run() async throws {
        let arrivals = self.bus.subscribe(to: MailArrived.self, bufferSize: 65_536)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                if let pingInterval = self.pingInterval {
                    group.addTask { await self.visitSlices(every: pingInterval) { $0.ping() } }
                }
                for await arrival in arrivals.cancelOnGracefulShutdown() {
                    self.wake(arrival.recipient)
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
        }
        self.resyncTimer.withLock { $0?.cancel() }
    }

    /// Wakes `courier` whenever its token may have new mail, until the returned handle is called.
    func register(_ courier: MailCourier) -> @Sendable () -> Void {
        let id = self.nextID.add(1, ordering: .relaxed).newValue
        let token = courier.token
        self.couriers.withLock { $0[token, default: [:]][id] = courier }
        return { [weak self] in
            self?.couriers.withLock { couriers in
                couriers[token]?[id] = nil
                if couriers[token]?.isEmpty == true { couriers[token] = nil }
            }
        }
    }

    /// Hands a message this process just stored to `token`'s open sockets, which send it without reading it back
    /// when it is the next one they expect.
    func deliver(_ message: MailboxMessage, to token: Token) {
        let couriers = self.couriers.withLock { $0[token].map { Array($0.values) } ?? [] }
        for courier in couriers { courier.offer(message) }
    }

    func wake(_ token: Token) {
        let couriers = self.couriers.withLock { $0[token].map { Array($0.values) } ?? [] }
        for courier in couriers { courier.wake() }
    }

    /// Wakes every socket once per `interval`, for backends whose notifications can be missed. The first call
    /// starts the timer; later calls do nothing.
    func resync(every interval: Duration) {
        self.resyncTimer.withLock { timer in
            guard timer == nil else { return }
            timer = Task { await self.visitSlices(every: interval) { $0.wake() } }
        }
    }

    /// Calls `visit` on every socket once per `interval`, one slice per tick, until cancelled.
    private func visitSlices(every interval: Duration, _ visit: (MailCourier) -> Void) async {
        var slice: UInt64 = 0
        while (try? await Task.sleep(for: interval / Int(Self.slices))) != nil {
            let couriers = self.couriers.withLock { couriers in
                couriers.values.flatMap { $0.filter { $0.key % Self.slices == slice }.map(\.value) }
            }
            for courier in couriers { visit(courier) }
            slice = (slice + 1) % Self.slices
        }
    }
}
