import Synchronization

/// Where a test's fake repository makes calls wait: while held, `pass()` waits until `release()`; `held()` returns
/// once a call is waiting.
final class Gate: Sendable {
    private let state = Mutex<(isHeld: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let reached = AsyncStream.makeStream(of: Void.self)

    func hold() { self.state.withLock { $0.isHeld = true } }

    /// Returns once a call is waiting at the gate.
    func held() async {
        for await _ in self.reached.stream { return }
    }

    func release() {
        let waiters = self.state.withLock { state in
            state.isHeld = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at once unless held; then when released.
    func pass() async {
        await withCheckedContinuation { continuation in
            let waits = self.state.withLock { state in
                guard state.isHeld else { return false }
                state.waiters.append(continuation)
                return true
            }
            if waits { self.reached.continuation.yield() } else { continuation.resume() }
        }
    }
}
