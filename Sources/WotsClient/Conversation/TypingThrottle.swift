/// When a chat tells the peer that this side is typing: `started` at most once per `interval` while keys are
/// pressed, `stopped` after `idle` without a key or when the line is sent. Events in, what to send out; no clock of
/// its own, so tests drive it with instants.
public struct TypingThrottle<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// Shortest time between two `started`. Default 3 s.
    public var interval: Duration = .seconds(3)
    /// Time without a key after which `stopped` is sent. Default 5 s.
    public var idle: Duration = .seconds(5)
    private var lastStarted: Instant?
    private var lastKey: Instant?

    public init() {}

    /// A key was pressed at `now`. - Returns: whether to send `started`.
    public mutating func keystroke(at now: Instant) -> Bool {
        self.lastKey = now
        if let lastStarted, lastStarted.duration(to: now) < self.interval { return false }
        self.lastStarted = now
        return true
    }

    /// Time passed. - Returns: whether to send `stopped` (the peer was told `started` and no key came for `idle`).
    public mutating func tick(at now: Instant) -> Bool {
        guard self.lastStarted != nil, let lastKey, lastKey.duration(to: now) >= self.idle else { return false }
        self.reset()
        return true
    }

    /// The line was sent. - Returns: whether to send `stopped` (the peer was told `started`).
    public mutating func sent() -> Bool {
        defer { self.reset() }
        return self.lastStarted != nil
    }

    private mutating func reset() {
        self.lastStarted = nil
        self.lastKey = nil
    }
}
