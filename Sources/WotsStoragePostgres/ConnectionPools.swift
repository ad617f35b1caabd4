import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import WotsStorage

/// The connection pool in use, and a fresh one in its place when the database comes back after an outage.
///
/// PostgresNIO's pool backs off between failed connection attempts (up to a minute; about 3 s after a 10-second
/// outage), and a query on a connection the server dropped mid-answer may never answer, keeping its connection leased.
/// Either can hold a relay back for seconds after its database is back. A fresh pool has neither: the health probe
/// replaces the pool as soon as a direct connection succeeds again, and the old pool is closed: operations still
/// waiting on it are abandoned at once (`Pool.retired`) rather than at their deadline.
final class ConnectionPools: Sendable {
    /// One pool and the event of its replacement.
    struct Pool: Sendable {
        var client: PostgresClient
        var retired = Broadcast()
    }

    private struct State {
        var current: Pool
        var running: Task<Void, Never>?
        var isStopped = false
        var replacedAt: ContinuousClock.Instant?
    }

    /// Replacements closer together than this are skipped: one recovery, one fresh pool.
    static let minimumReplacementInterval: Duration = .seconds(2)

    private let state: Mutex<State>
    private let makeClient: @Sendable () -> PostgresClient
    private let stopped: AsyncStream<Void>
    private let stop: AsyncStream<Void>.Continuation

    init(makeClient: @escaping @Sendable () -> PostgresClient) {
        self.makeClient = makeClient
        self.state = Mutex(State(current: Pool(client: makeClient())))
        (self.stopped, self.stop) = AsyncStream.makeStream(of: Void.self)
    }

    /// The pool queries go to now.
    var current: Pool { self.state.withLock { $0.current } }

    /// Runs the current pool, and every pool that replaces it, until the task is cancelled or a graceful shutdown.
    func run() async {
        self.state.withLock { state in
            let client = state.current.client
            state.running = Task { await client.run() }
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await _ in self.stopped {}
            } onGracefulShutdown: {
                self.stop.finish()
            }
        } onCancel: {
            self.stop.finish()
        }
        let last = self.state.withLock { state in
            state.isStopped = true
            return state.running
        }
        last?.cancel()
        await last?.value
    }

    /// Puts a fresh pool in place and closes the old one (its queries under way fail).
    /// - Returns: whether a pool was replaced (not when stopped, or when one was replaced just now).
    @discardableResult
    func replace(now: ContinuousClock.Instant = .now) -> Bool {
        let fresh = self.makeClient()
        let replaced = self.state.withLock { state -> (Task<Void, Never>, Pool)? in
            guard !state.isStopped, let running = state.running else { return nil }
            if let last = state.replacedAt, last.duration(to: now) < Self.minimumReplacementInterval { return nil }
            state.replacedAt = now
            defer {
                state.current = Pool(client: fresh)
                state.running = Task { await fresh.run() }
            }
            return (running, state.current)
        }
        guard let (running, old) = replaced else { return false }
        old.retired.fire()
        running.cancel()
        return true
    }
}
