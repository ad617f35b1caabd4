import Histogram
import Synchronization

/// Counters and latencies shared by every connection.
final class Collector: Sendable {
    struct State {
        var delivered = 0
        var accepted = 0
        var refused = 0
        /// `ack` frames the recipients sent.
        var ackFrames = 0
        var refusals: [String: Int] = [:]
        /// message id → send time (ns), only while measuring latency.
        var sentAt: [String: UInt64] = [:]
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var trackLatency = false
    }

    let state = Mutex(State())

    var delivered: Int { self.state.withLock { $0.delivered } }
    var accepted: Int { self.state.withLock { $0.accepted } }
}
