import Foundation

/// Timing helpers. Wall-clock time on `ContinuousClock`: storage waits on fsync and sockets, not on the CPU.
enum Measure {
    static let clock = ContinuousClock()

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// Runs `operation` from `tasks` concurrent tasks until `seconds` have passed; returns items per second, where one
    /// call handles `itemsPerCall` items. Time runs until the last call in flight has returned.
    static func rate(
        seconds: Double,
        tasks: Int,
        itemsPerCall: Int,
        _ operation: @escaping @Sendable (_ task: Int, _ call: Int) async throws -> Void
    ) async throws -> Double {
        let start = self.clock.now
        let deadline = start + .milliseconds(Int64(seconds * 1000))
        let calls = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var call = 0
                    while self.clock.now < deadline {
                        try await operation(task, call)
                        call += 1
                    }
                    return call
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(calls * itemsPerCall) / self.seconds(self.clock.now - start)
    }
}
