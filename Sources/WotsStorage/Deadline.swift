import Synchronization
import WotsCore

/// Bounds how long a caller waits for storage work.
///
/// The work runs in its own task and the caller waits for whichever comes first, the work's outcome or the deadline,
/// so work that ignores cancellation (a query on a connection that died without a word) cannot hold the caller:
/// past the deadline the caller gets `storage_unavailable` and the work is cancelled and left to end on its own.
/// A caller that is cancelled itself cancels the work and gets `CancellationError`.
package enum Deadline {
    package static func run<Value: Sendable>(
        _ timeout: Duration,
        _ operation: String,
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
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }
                        race.finish(
                            .failure(
                                WotsError(
                                    .storageUnavailable,
                                    "the database did not \(operation) within \(timeout)"
                                )
                            ),
                            cancellingWork: true
                        )
                    }
                )
            }
        } onCancel: {
            race.finish(.failure(CancellationError()), cancellingWork: true)
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
