import Foundation

extension Date {
    /// Whole milliseconds since 1970, rounded down: how times are stored.
    var millisecondsSince1970: Int64 { Int64(self.milliseconds(rounding: .down)) }

    /// Whole milliseconds since 1970, rounded up: for `stored < cutoff` comparisons that must agree with `Date`'s.
    var millisecondsSince1970RoundedUp: Int64 { Int64(self.milliseconds(rounding: .up)) }

    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private func milliseconds(rounding rule: FloatingPointRoundingRule) -> Double {
        let exact = self.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        // A time read back from whole milliseconds comes back a hair off; it must not move by one.
        return abs(exact - nearest) < 0.001 ? nearest : exact.rounded(rule)
    }
}
