import Synchronization
public import WotsCore

/// What a database's recent operations say about it, for `/readyz` and for failing fast during an outage.
///
/// Every operation's outcome is recorded: `storage_unavailable` marks the database unavailable until an operation
/// (or a probe) succeeds; `storage_full` marks it short of space until a probe finds room again (acknowledgements
/// and deletions keep working meanwhile, so a successful write does not clear it).
public final class StorageHealth: Sendable {
    public enum Condition: Sendable, Hashable {
        case healthy
        /// Operations fail: the database is unreachable, or refuses writes.
        case unavailable(reason: String)
        /// New mail is refused to keep room for what frees space.
        case shortOfSpace(reason: String)
    }

    private struct State {
        var unavailable: String?
        var shortOfSpace: String?
        var failsFast = false
    }

    private let state = Mutex(State())
    /// Fired when an operation finds the database unavailable, so a prober need not wait out its interval.
    package let trouble = Signal()

    public init() {}

    /// Unavailable wins over short of space: it is the more urgent to report.
    public var condition: Condition {
        self.state.withLock { state in
            if let reason = state.unavailable { return .unavailable(reason: reason) }
            if let reason = state.shortOfSpace { return .shortOfSpace(reason: reason) }
            return .healthy
        }
    }

    /// Records an operation's outcome.
    public func record(_ outcome: Result<Void, any Error>) {
        switch outcome {
        case .success:
            self.state.withLock { $0.unavailable = nil }
        case .failure(let error as WotsError) where error.code == .storageUnavailable:
            let isNew = self.state.withLock { state in
                defer { state.unavailable = error.reason }
                return state.unavailable == nil
            }
            if isNew { self.trouble.fire() }
        case .failure(let error as WotsError) where error.code == .storageFull:
            self.state.withLock { $0.shortOfSpace = error.reason }
        case .failure:
            break
        }
    }

    /// Records a readiness probe's outcome: unlike an operation, a successful probe also clears shortage of space.
    public func recordProbe(_ outcome: Result<Void, any Error>) {
        if case .success = outcome { self.state.withLock { $0.shortOfSpace = nil } }
        self.record(outcome)
    }

    /// While something probes the database (the relay's health monitor), operations on an unavailable database fail
    /// at once instead of each waiting for its deadline; the probe's first success ends that.
    public func failFast(_ enabled: Bool) { self.state.withLock { $0.failsFast = enabled } }

    /// The error to fail an operation with right away, or nil to try it.
    public var fastFailure: WotsError? {
        self.state.withLock { state in
            guard state.failsFast, let reason = state.unavailable else { return nil }
            return WotsError(.storageUnavailable, "the database is unavailable (\(reason))")
        }
    }
}
