import Synchronization

/// A wake-up for one waiter: `fire()` before `wait()` is kept, so it is never lost; a cancelled wait returns.
package final class Signal: Sendable {
    private struct State {
        var isPending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    package init() {}

    package func fire() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.isPending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when fired (or at once when fired since the last wait), or when the task is cancelled.
    package func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.isPending || Task.isCancelled {
                        state.isPending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

/// A one-time event for any number of waiters: once fired, every wait, past or future, returns.
package final class Broadcast: Sendable {
    private struct State {
        var isFired = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var isFired: Bool { self.state.withLock { $0.isFired } }

    package func fire() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isFired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once fired, or when the task is cancelled.
    package func wait() async {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.isFired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
