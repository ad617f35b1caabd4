import Synchronization

/// Counters shared by every connection, counted from the sockets' event loops without a lock, and the moment each
/// reached the goal a shape set for it (so a shape's time ends at its last message, not at the next poll).
final class Collector: Sendable {
    private let deliveredCount = Atomic<Int>(0)
    private let acceptedCount = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)
    private let ackFrameCount = Atomic<Int>(0)
    private let deliveredGoal = Atomic<Int>(Int.max)
    private let deliveredGoalReached = Atomic<UInt64>(0)
    private let answeredGoal = Atomic<Int>(Int.max)
    private let answeredGoalReached = Atomic<UInt64>(0)
    private let refusalCodes = Mutex<[String: Int]>([:])

    var delivered: Int { self.deliveredCount.load(ordering: .relaxed) }
    var accepted: Int { self.acceptedCount.load(ordering: .relaxed) }
    var refused: Int { self.refusedCount.load(ordering: .relaxed) }
    /// Replies to `send` and `ack` frames that were `error`s, by code.
    var refusals: [String: Int] { self.refusalCodes.withLock { $0 } }
    /// `ack` frames the recipients sent.
    var ackFrames: Int { self.ackFrameCount.load(ordering: .relaxed) }

    /// From now, notes when `delivered` reaches `count` (`deliveredGoalTime`).
    func expectDelivered(_ count: Int) {
        self.deliveredGoalReached.store(0, ordering: .relaxed)
        self.deliveredGoal.store(count, ordering: .sequentiallyConsistent)
        if self.delivered >= count { self.deliveredGoalReached.store(now(), ordering: .relaxed) }
    }

    /// From now, notes when `accepted + refused` reaches `count` (`answeredGoalTime`).
    func expectAnswered(_ count: Int) {
        self.answeredGoalReached.store(0, ordering: .relaxed)
        self.answeredGoal.store(count, ordering: .sequentiallyConsistent)
        if self.accepted + self.refused >= count { self.answeredGoalReached.store(now(), ordering: .relaxed) }
    }

    /// When the delivered goal was reached (ns), if it was.
    var deliveredGoalTime: UInt64? { Self.time(self.deliveredGoalReached) }
    var answeredGoalTime: UInt64? { Self.time(self.answeredGoalReached) }

    func countDelivered() {
        let count = self.deliveredCount.wrappingAdd(1, ordering: .relaxed).newValue
        if count == self.deliveredGoal.load(ordering: .relaxed) {
            self.deliveredGoalReached.store(now(), ordering: .relaxed)
        }
    }

    func countAccepted() {
        let accepted = self.acceptedCount.wrappingAdd(1, ordering: .relaxed).newValue
        self.checkAnswered(accepted + self.refused)
    }

    func countRefused(code: String) {
        let refused = self.refusedCount.wrappingAdd(1, ordering: .relaxed).newValue
        self.refusalCodes.withLock { $0[code, default: 0] += 1 }
        self.checkAnswered(self.accepted + refused)
    }

    func countAckFrame() { self.ackFrameCount.wrappingAdd(1, ordering: .relaxed) }

    private func checkAnswered(_ answered: Int) {
        if answered == self.answeredGoal.load(ordering: .relaxed) {
            self.answeredGoalReached.store(now(), ordering: .relaxed)
        }
    }

    private static func time(_ atomic: borrowing Atomic<UInt64>) -> UInt64? {
        let time = atomic.load(ordering: .relaxed)
        return time == 0 ? nil : time
    }
}
