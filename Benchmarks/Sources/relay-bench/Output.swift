import Foundation
import NIOCore
import Synchronization

/// Prints a line and flushes at once, so `tee` in scripts/bench-relay.sh shows progress as it happens.
func say(_ text: String) {
    print(text)
    fflush(nil)
}

/// Prints a figure as a `RESULT key=value` line, the form scripts/bench-relay.sh collects.
func result(_ key: String, _ value: String) { say("RESULT \(key)=\(value)") }
func result(_ key: String, _ value: Double, digits: Int = 0) { result(key, String(format: "%.\(digits)f", value)) }

/// Monotonic nanoseconds.
func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double, _ condition: () -> Bool) async throws -> Bool {
    let deadline = now() + UInt64(seconds * 1e9)
    while now() < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A mutex that escaping closures can share.
final class Locked<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { self.mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { self.mutex.withLock { body(&$0) } }
}
