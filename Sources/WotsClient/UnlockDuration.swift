import WotsCore

/// How long `wots unlock` keeps an account unlocked: a whole number and a unit, `90s`, `30m`, `12h`, `1d`.
public struct UnlockDuration: Sendable, Hashable, CustomStringConvertible {
    /// 12 hours: a working day, and gone by the next.
    public static let standard = UnlockDuration(seconds: 12 * 3600)
    /// The longest accepted: 7 days.
    public static let maximum = UnlockDuration(seconds: 7 * 86_400)

    public let seconds: Int

    public var duration: Duration { .seconds(self.seconds) }

    private init(seconds: Int) { self.seconds = seconds }

    /// Parses `N` followed by `s`, `m`, `h` or `d`.
    /// - Throws: `WotsError.invalidInput` naming the value and the rule (a unit is required; 1 s to 7 d).
    public init(parsing text: String) throws {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count > 0 else {
            throw WotsError(
                .invalidInput,
                "duration \"\(text.prefix(20))\" is not a whole number with a unit (s, m, h or d), e.g. 30m or 12h"
            )
        }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, seconds <= Self.maximum.seconds else {
            throw WotsError(.invalidInput, "duration \(text) is longer than the maximum (7d)")
        }
        self.seconds = seconds
    }

    /// The largest whole unit: `12h`, `90m`, `45s`.
    public var description: String {
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where self.seconds % size == 0 {
            return "\(self.seconds / size)\(unit)"
        }
        return "\(self.seconds)s"
    }
}
