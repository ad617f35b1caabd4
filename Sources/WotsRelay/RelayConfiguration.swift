/// Everything a relay can be told, with defaults fit for a small deployment.
public struct RelayConfiguration: Sendable {
    /// Address to listen on. Default 127.0.0.1.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one. Default 8080.
    public var port: Int = 8080
    /// Largest envelope accepted, in bytes of its binary form. Default 64 KiB.
    public var maximumEnvelopeSize: Int = 65_536
    /// Messages kept per recipient before senders get `mailbox_full`. Default 10,000.
    public var mailboxCapacity: Int = 10_000
    /// How long an unacknowledged message is kept. Default 30 days.
    public var messageRetention: Duration = .seconds(30 * 24 * 3600)
    /// How long an authentication challenge may be answered. Default 60 seconds.
    public var challengeLifetime: Duration = .seconds(60)
    /// How long a session lasts. Default 1 hour.
    public var sessionLifetime: Duration = .seconds(3600)
    /// Sends per token: sustained rate per second and burst. Default 50/s, burst 200.
    public var sendRate = RateLimit(perSecond: 50, burst: 200)
    /// Registrations per client address. Default 1 every 6 s, burst 20.
    public var registrationRate = RateLimit(perSecond: 1.0 / 6, burst: 20)
    /// Restore attempts per nickname. Default 1 every 30 s, burst 5.
    public var restoreRate = RateLimit(perSecond: 1.0 / 30, burst: 5)
    /// Largest WebSocket frame accepted. Default 128 KiB.
    public var maximumFrameSize: Int = 131_072
    /// Largest HTTP request body accepted. Default 256 KiB.
    public var maximumRequestSize: Int = 262_144
    /// How often every WebSocket gets a ping frame (keeps NAT mappings open). A peer whose TCP stack stops
    /// acknowledging for twice this long is disconnected (Linux `TCP_USER_TIMEOUT`). Default 30 seconds.
    public var pingInterval: Duration = .seconds(30)
    /// A WebSocket that has not authenticated within this time is closed. Default 10 seconds.
    public var authenticationTimeout: Duration = .seconds(10)
    /// How often a connected WebSocket re-reads its mailbox without being woken, so that a lost cross-process
    /// notification (PostgreSQL `LISTEN/NOTIFY` drops what arrives while its connection is down) only delays
    /// delivery. Default nil: no resync, as in a single process nothing is lost.
    public var resyncInterval: Duration? = nil
    /// Longest a relay keeps an account's session or directory entry in memory without reading the database. A
    /// change made through this relay, or announced by another relay process, takes effect at once; this bounds the
    /// staleness only when such an announcement is lost. Default 10 seconds.
    public var accountCacheLifetime: Duration = .seconds(10)
    /// How often expired challenges, sessions and messages are swept. Default every minute.
    public var sweepInterval: Duration = .seconds(60)

    public init() {}
}

/// A token bucket's refill rate and capacity.
public struct RateLimit: Sendable, Hashable {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// No practical limit, for benchmarks and tests that measure something else.
    public static let unlimited = RateLimit(perSecond: 1e9, burst: 1e9)
}
