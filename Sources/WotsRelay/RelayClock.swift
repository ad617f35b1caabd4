/// The relay's time, injected so tests advance a manual clock instead of waiting: `now` counts from an origin
/// fixed when the clock was made, `sleep` waits on the same clock.
public struct RelayClock: Sendable {
    public let now: @Sendable () -> Duration
    public let sleep: @Sendable (Duration) async throws -> Void

    /// Wraps any clock that counts in `Duration`.
    public init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.sleep = { try await clock.sleep(for: $0) }
    }

    /// Real time: `ContinuousClock`.
    public static var continuous: RelayClock { RelayClock(ContinuousClock()) }
}
