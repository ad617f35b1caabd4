import Dispatch

/// Runs blocking work (waiting for a child process, reading its pipe) on a dispatch thread, never on one of the task
/// pool's few threads: the tests share one process, and a pool thread held for seconds stalls every other test's
/// awaits until their storage deadlines pass.
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// `offThePool` for work that cannot fail.
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}
