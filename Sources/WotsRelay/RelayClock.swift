public import Foundation
import WotsCore

/// The relay's time, injected so tests advance a manual clock instead of waiting: `now` counts from an origin
/// fixed when the clock was made, `sleep` waits on the same clock, and `date` is the calendar time envelope expiry,
/// receive times and sweeps are judged by.
public struct RelayClock: Sendable {
    public let now: @Sendable () -> Duration
    public let sleep: @Sendable (Duration) async throws -> Void
    public let date: @Sendable () -> Date

    /// Wraps any clock that counts in `Duration`; its calendar time is `start` moved on as far as the clock moved.
    public init<C: Clock<Duration>>(_ clock: C, start: Date = Date()) {
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.sleep = { try await clock.sleep(for: $0) }
        self.date = { start.addingTimeInterval(origin.duration(to: clock.now).seconds) }
    }

    private init(_ clock: ContinuousClock, date: @escaping @Sendable () -> Date) {
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.sleep = { try await clock.sleep(for: $0) }
        self.date = date
    }

    /// Real time: `ContinuousClock`, and the system's calendar time (which follows the operator's clock corrections).
    public static var continuous: RelayClock { RelayClock(ContinuousClock(), date: { Date() }) }
}
