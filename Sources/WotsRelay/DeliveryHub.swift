import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import WotsCore
import WotsStorage

/// The open sockets of this process by recipient: hands them fresh mail, wake-ups and acknowledgements, and drives
/// their timers.
///
/// Mail stored by this process is offered to the couriers directly (`deliver`); mail other relay processes stored
/// arrives as `MailArrived` on the bus (PostgreSQL `LISTEN/NOTIFY`) and wakes the couriers of that token, which then
/// read their mailbox. Pings and resyncs run on one relay-wide timer that ticks a slice of the sockets at a time,
/// rather than on a sleeping task per socket; the clock is injected so tests advance it instead of waiting.
final class DeliveryHub: Service, Sendable {
    static var slices: UInt64 { 30 }

    private let bus: EventBus
    private let clock: RelayClock
    /// How long a full round of ticks over every socket takes.
    private let tickRound: Duration
    private let couriers = Mutex<[Token: [UInt64: MailCourier]]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let accountChanges = Atomic<UInt64>(0)

    /// - Parameter tickRound: every socket is ticked once per round; the shortest of the ping and resync intervals
    ///   divided by two keeps either from running late by more than half its interval.
    init(bus: EventBus, clock: RelayClock, tickRound: Duration) {
        self.bus = bus
        self.clock = clock
        self.tickRound = tickRound
    }

    func run() async throws {
        let arrivals = self.bus.subscribe(to: MailArrived.self, bufferSize: 65_536)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.tickSlices() }
            for await arrival in arrivals.cancelOnGracefulShutdown() {
                self.wake(arrival.recipient)
            }
            group.cancelAll()
        }
    }

    /// How many account changes `StreamRevoker` has started to act on: a socket that reads the same count before its
    /// session was looked up and after it was registered missed none of them.
    var accountChangesHeard: UInt64 { self.accountChanges.load(ordering: .sequentiallyConsistent) }

    /// Called by `StreamRevoker` for each change, after it forgot the account's cached values and before it reads
    /// which tokens have sockets.
    func noteAccountChange() { self.accountChanges.add(1, ordering: .sequentiallyConsistent) }

    /// Delivers to `courier` until the returned handle is called.
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

    /// Offers a message or group slot this process just stored to `token`'s open sockets.
    /// - Returns: whether `token` has an open socket here, which will acknowledge the message once it has it.
    @discardableResult
    func deliver(_ mail: StreamMail, to token: Token) -> Bool {
        let couriers = self.couriers(of: token)
        for courier in couriers { courier.offer(mail) }
        return !couriers.isEmpty
    }

    /// Hands an ephemeral envelope to `token`'s open sockets in this process, which write it at once.
    /// - Returns: how many sockets were handed it.
    func passOn(_ envelope: Envelope, receivedAt: Date, to token: Token) -> Int {
        self.couriers(of: token).filter { $0.passOn(envelope, receivedAt: receivedAt) }.count
    }

    /// Hands `token`'s slot of an ephemeral group message to its sockets in this process that asked for groups.
    /// - Returns: how many sockets were handed it.
    func passOnGroup(_ body: GroupEnvelope, slot: [UInt8], receivedAt: Date, to token: Token) -> Int {
        self.couriers(of: token).filter { $0.passOnGroup(body, slot: slot, receivedAt: receivedAt) }.count
    }

    /// Makes `token`'s open sockets read their mailbox.
    func wake(_ token: Token) {
        for courier in self.couriers(of: token) { courier.wake() }
    }

    /// Tells `token`'s open sockets that these messages were acknowledged (on any of them, or over HTTP).
    func acknowledged(_ keys: [MessageKey], by token: Token) {
        guard !keys.isEmpty else { return }
        for courier in self.couriers(of: token) { courier.acknowledged(keys) }
    }

    /// Closes `token`'s open sockets with `error` (the account was suspended or deleted).
    func revoke(_ token: Token, _ error: WotsError) async {
        for courier in self.couriers(of: token) { await courier.revoke(error) }
    }

    /// Closes the sockets of `token` whose session no longer exists (the keys were rotated, which ends every
    /// session of the account, or the session expired).
    func endSessions(of token: Token, where ended: @Sendable (SessionGrant) async throws -> Bool) async rethrows {
        for courier in self.couriers(of: token) where try await ended(courier.session) {
            courier.endSession(StreamRevoker.sessionEnded)
        }
    }

    /// The tokens that have open sockets.
    var tokens: [Token] { self.couriers.withLock { Array($0.keys) } }

    /// How many sockets are registered.
    var count: Int { self.couriers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    private func couriers(of token: Token) -> [MailCourier] {
        self.couriers.withLock { $0[token].map { Array($0.values) } ?? [] }
    }

    /// Ticks one slice of the sockets per step, every socket once per round, until cancelled.
    private func tickSlices() async {
        var slice: UInt64 = 0
        while (try? await self.clock.sleep(self.tickRound / Int(Self.slices))) != nil {
            let due = self.couriers.withLock { couriers in
                couriers.values.flatMap { $0.filter { $0.key % Self.slices == slice }.map(\.value) }
            }
            for courier in due { courier.tick() }
            slice = (slice + 1) % Self.slices
        }
    }
}
