import Synchronization
import WotsCore

/// Bounds how long a caller waits for storage work.
///
/// The work runs in its own task and the caller waits for whichever comes first, the work's outcome or the deadline,
/// so work that ignores cancellation (a query on a connection that died without a word) cannot hold the caller:
/// past the deadline the caller gets `storage_unavailable` and the work is cancelled and left to end on its own.
/// A caller that is cancelled itself cancels the work and gets `CancellationError`. When `abandonedBy` fires first
/// (the connection pool the work runs on was replaced), the caller gets `storage_unavailable` at once too.
package enum Deadline {
    package static func run<Value: Sendable>(
        _ timeout: Duration,
        _ operation: String,
        abandonedBy abandonment: Broadcast? = nil,
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(
                    continuation: continuation,
                    work: Task {
                        do {
                            race.finish(.success(try await work()))
                        } catch {
                            race.finish(.failure(error))
                        }
                    },
                    timer: Task {
                        let reason = await Self.firstOf(timeout: timeout, abandonment: abandonment)
                        guard !Task.isCancelled else { return }
                        race.finish(
                            .failure(WotsError(.storageUnavailable, "the database did not \(operation) \(reason)")),
                            cancellingWork: true
                        )
                    }
                )
            }
        } onCancel: {
            race.finish(.failure(CancellationError()), cancellingWork: true)
        }
    }

    /// Waits for the deadline or the abandonment, whichever comes first, and says which.
    private static func firstOf(timeout: Duration, abandonment: Broadcast?) async -> String {
        await withTaskGroup(of: String.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                return "within \(timeout)"
            }
            if let abandonment {
                group.addTask {
                    await abandonment.wait()
                    return "before its connection was dropped"
                }
            }
            let first = await group.next() ?? ""
            group.cancelAll()
            return first
        }
    }

    /// Resumes the caller once, with the first outcome; cancels the timer, and the work when it lost.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var tasks: (work: Task<Void, Never>, timer: Task<Void, Never>)?
            /// The outcome, once known; kept when it came before `start`.
            var outcome: Result<Value, any Error>?
            var cancelsWork = false
        }

        private let state = Mutex(State())

        func start(
            continuation: CheckedContinuation<Value, any Error>,
            work: Task<Void, Never>,
            timer: Task<Void, Never>
        ) {
            let settled = self.state.withLock { state -> (Result<Value, any Error>, Bool)? in
                state.tasks = (work, timer)
                guard let outcome = state.outcome else {
                    state.continuation = continuation
                    return nil
                }
                return (outcome, state.cancelsWork)
            }
            guard let (outcome, cancelsWork) = settled else { return }
            timer.cancel()
            if cancelsWork { work.cancel() }
            continuation.resume(with: outcome)
        }

        func finish(_ outcome: Result<Value, any Error>, cancellingWork: Bool = false) {
            let waiting = self.state.withLock {
                state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?, Task<Void, Never>?)? in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                state.cancelsWork = cancellingWork
                defer { state.continuation = nil }
                return (state.continuation, state.tasks?.work, state.tasks?.timer)
            }
            guard let (continuation, work, timer) = waiting else { return }
            timer?.cancel()
            if cancellingWork { work?.cancel() }
            continuation?.resume(with: outcome)
        }
    }
}
