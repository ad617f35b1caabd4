import Synchronization
import WotsCore

/// A write a store has taken into its order, whose outcome comes once its transaction committed or failed.
///
/// Taking a place in the order and waiting for the outcome are two steps, so one caller can hand a store several
/// writes in a row (they are applied in that order) and wait for their outcomes afterwards. Any number of waiters and
/// callbacks may be attached, before or after the outcome is known; each sees it once.
public final class PendingWrite<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiters: [CheckedContinuation<Value, any Error>] = []
        var callbacks: [@Sendable (Result<Value, any Error>) -> Void] = []
    }

    private let state = Mutex(State())

    /// A write whose outcome is not known yet; `settle` gives it.
    public init() {}

    /// A write whose outcome is already known (a refusal, or a duplicate of a stored write).
    public static func settled(_ outcome: Result<Value, any Error>) -> PendingWrite {
        let write = PendingWrite()
        write.settle(outcome)
        return write
    }

    /// Whether the outcome is known.
    public var isSettled: Bool { self.state.withLock { $0.outcome != nil } }

    /// Gives the outcome to every waiter and callback; only the first call counts.
    public func settle(_ outcome: Result<Value, any Error>) {
        let (waiters, callbacks) = self.state.withLock {
            state -> ([CheckedContinuation<Value, any Error>], [@Sendable (Result<Value, any Error>) -> Void]) in
            guard state.outcome == nil else { return ([], []) }
            state.outcome = outcome
            defer {
                state.waiters = []
                state.callbacks = []
            }
            return (state.waiters, state.callbacks)
        }
        for waiter in waiters { waiter.resume(with: outcome) }
        for callback in callbacks { callback(outcome) }
    }

    /// Waits for the outcome. The wait is not cut short by cancellation: a write that was taken is answered within
    /// the store's own deadline.
    public func outcome() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let known = self.state.withLock { state -> Result<Value, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(with: known) }
        }
    }

    /// The outcome, when it is known already.
    /// - Throws: the failure; `storage_corrupted` when the outcome is not known yet.
    package func settledValue() throws -> Value {
        guard let outcome = self.state.withLock({ $0.outcome }) else {
            throw WotsError(.storageCorrupted, "a write was read before its outcome was known")
        }
        return try outcome.get()
    }

    /// Calls `body` with the outcome once it is known: at once when it is known already.
    public func whenSettled(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        let known = self.state.withLock { state -> Result<Value, any Error>? in
            if let outcome = state.outcome { return outcome }
            state.callbacks.append(body)
            return nil
        }
        if let known { body(known) }
    }

    /// A write settled with this one's outcome passed through `transform` (a thrown error becomes the outcome).
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Value) throws -> Other) -> PendingWrite<Other> {
        let mapped = PendingWrite<Other>()
        self.whenSettled { outcome in
            mapped.settle(Result { try transform(try outcome.get()) })
        }
        return mapped
    }
}
