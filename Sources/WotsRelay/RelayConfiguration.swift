import WotsCore

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
    /// Most recipients one group message may list (1–256). Default 256.
    public var maximumGroupMembers: Int = 256
    /// Bytes of serialized envelopes kept per recipient before senders get `mailbox_quota_exceeded`. Default 256 MiB.
    public var mailboxQuota: Int = 256 << 20
    /// Largest attachment blob accepted, in encrypted bytes; larger ones get `blob_too_large`. Default 100 MiB.
    public var maximumBlobSize: Int64 = 100 << 20
    /// Bytes of blobs one account may have stored (unfinished or not yet fetched by every recipient) before its next
    /// upload gets `blob_quota_exceeded`. Default 1 GiB.
    public var blobQuota: Int64 = 1 << 30
    /// How long an unfinished upload is kept. A complete blob is kept for `messageRetention`. Default 24 hours.
    public var unfinishedBlobLifetime: Duration = .seconds(24 * 3600)
    /// How long an unacknowledged message is kept; then it is deleted and its sender gets an `expired` notice.
    /// Default 30 days.
    public var messageRetention: Duration = .seconds(30 * 24 * 3600)
    /// How long an expiry notice waits for its sender to clear it; independent of `messageRetention`, so a sender
    /// who is away as long as their recipient still learns what happened. Default 30 days.
    public var expiryNoticeLifetime: Duration = .seconds(30 * 24 * 3600)
    /// Most messages one sweep transaction expires, so a large backlog is worked off in short transactions.
    /// Default 500.
    public var expiryBatchSize: Int = 500
    /// How long an authentication challenge may be answered. Default 60 seconds.
    public var challengeLifetime: Duration = .seconds(60)
    /// How long a session lasts. Default 1 hour.
    public var sessionLifetime: Duration = .seconds(3600)
    /// Sends per token: sustained rate per second and burst. Default 50/s, burst 200.
    public var sendRate = RateLimit(perSecond: 50, burst: 200)
    /// Registrations per client address. Default 1 every 6 s, burst 20.
    public var registrationRate = RateLimit(perSecond: 1.0 / 6, burst: 20)
    /// Restore attempts per client address and nickname. Default 1 every 30 s, burst 5.
    public var restoreRate = RateLimit(perSecond: 1.0 / 30, burst: 5)
    /// Restore attempts per nickname from all addresses together: a ceiling far above `restoreRate`, so strangers
    /// guessing from many addresses are bounded without being able to lock the owner out. Default 1/s, burst 60.
    public var restoreCeiling = RateLimit(perSecond: 1, burst: 60)
    /// Challenges (`POST /v1/auth/challenge`, needed to log in, restore or delete) per client address.
    /// Default 10/s, burst 100.
    public var challengeRate = RateLimit(perSecond: 10, burst: 100)
    /// Largest WebSocket frame accepted. Default 128 KiB.
    public var maximumFrameSize: Int = 131_072
    /// Most whole client messages one WebSocket keeps waiting to be answered before the relay stops reading it;
    /// reading resumes once half of them were. Replies waiting for their commits are bounded apart. Default 32.
    public var streamMessagesWaiting: Int = 32
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
    /// How long an acknowledged message's (sender, id) is remembered, so a late retry of its send is answered with
    /// the first receipt instead of being delivered again. Default 7 days.
    public var acknowledgementMemory: Duration = .seconds(7 * 24 * 3600)
    /// How often the database is probed while healthy. Default 2 seconds.
    public var healthProbeInterval: Duration = .seconds(2)
    /// How often the database is probed while unavailable or short of space, which bounds how long after it
    /// recovers the relay notices. Default 250 milliseconds.
    public var recoveryProbeInterval: Duration = .milliseconds(250)
    /// A new connection must send its first request's whole header block (or its WebSocket upgrade) within this time,
    /// else it is closed: a slowloris peer trickling headers holds a descriptor no longer. Default 10 seconds.
    public var headerTimeout: Duration = .seconds(10)
    /// A request's body must arrive whole within this time after its head, else the connection is closed.
    /// Default 30 seconds.
    public var bodyTimeout: Duration = .seconds(30)
    /// An HTTP keep-alive connection with no request under way is closed after this long; it also bounds the headers
    /// of every request after the first. Default 60 seconds.
    public var idleTimeout: Duration = .seconds(60)
    /// Most connections (HTTP and WebSocket) open at once; one more is accepted and closed at once. Default nil: derived
    /// from the descriptor limit at start (`DescriptorLimit.connectionCap`).
    public var maximumConnections: Int? = nil
    /// A fragmented WebSocket message must be finished within this time after its first fragment, else the socket is
    /// closed with 1008. Default 10 seconds.
    public var fragmentTimeout: Duration = .seconds(10)
    /// Reverse proxies whose `X-Forwarded-For` names the client for per-address rate limits. Default none: the peer
    /// address is the client.
    public var trustedProxies: TrustedProxies = .none
    /// Who may register: anyone (the default, for a personal relay), holders of an operator's invite, or nobody.
    public var registration: RegistrationMode = .open
    /// The browser client served at `GET /`. Default nil: the API only.
    public var webClient: WebClient? = nil
    /// Plain `POST /v1/messages` answered on the connection's event loop (`InlineSend`); false leaves every request
    /// to the router, as a reference for tests and benchmarks.
    public var answersSendsInline = true

    public init() {}

    /// This configuration, checked: every rule that relates its values, for every entry point (the executable, tests,
    /// benchmarks).
    /// - Throws: `invalid_argument` naming the setting and the rule it breaks.
    public func validated() throws -> RelayConfiguration {
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) throws {
            guard condition else { throw WotsError(.invalidArgument, "relay configuration: \(rule())") }
        }
        try require((0...65_535).contains(self.port), "port \(self.port) is not in 0–65535")
        try require(!self.host.isEmpty, "host must not be empty")
        try require(self.maximumBlobSize >= 16, "maximumBlobSize \(self.maximumBlobSize) is below 16 bytes")
        try require(self.blobQuota >= self.maximumBlobSize, "blobQuota must hold at least one blob of maximumBlobSize")
        try require(
            (1_024...16_777_216).contains(self.maximumEnvelopeSize),
            "maximumEnvelopeSize \(self.maximumEnvelopeSize) is not in 1,024–16,777,216 bytes"
        )
        try require(
            self.maximumFrameSize >= 2 * self.maximumEnvelopeSize,
            "maximumFrameSize \(self.maximumFrameSize) must be at least twice maximumEnvelopeSize (a sent envelope "
                + "travels as base64 JSON)"
        )
        try require(
            self.maximumRequestSize >= 2 * self.maximumEnvelopeSize,
            "maximumRequestSize \(self.maximumRequestSize) must be at least twice maximumEnvelopeSize"
        )
        try require(self.mailboxCapacity >= 1, "mailboxCapacity must be at least 1")
        try require(
            (1...GroupEnvelopeHeader.maximumRecipients).contains(self.maximumGroupMembers),
            "maximumGroupMembers \(self.maximumGroupMembers) is not in 1–256"
        )
        try require(
            self.mailboxQuota >= self.maximumEnvelopeSize,
            "mailboxQuota \(self.mailboxQuota) must be at least maximumEnvelopeSize \(self.maximumEnvelopeSize)"
        )
        try require(
            (1...100_000).contains(self.expiryBatchSize),
            "expiryBatchSize \(self.expiryBatchSize) is not in 1–100,000"
        )
        for (name, limit) in [
            ("sendRate", self.sendRate), ("registrationRate", self.registrationRate), ("restoreRate", self.restoreRate),
            ("restoreCeiling", self.restoreCeiling), ("challengeRate", self.challengeRate),
        ] {
            try require(limit.perSecond > 0 && limit.burst >= 1, "\(name) needs a positive rate and a burst ≥ 1")
        }
        for (name, duration) in [
            ("messageRetention", self.messageRetention), ("challengeLifetime", self.challengeLifetime),
            ("sessionLifetime", self.sessionLifetime), ("pingInterval", self.pingInterval),
            ("authenticationTimeout", self.authenticationTimeout), ("accountCacheLifetime", self.accountCacheLifetime),
            ("sweepInterval", self.sweepInterval), ("acknowledgementMemory", self.acknowledgementMemory),
            ("expiryNoticeLifetime", self.expiryNoticeLifetime),
            ("healthProbeInterval", self.healthProbeInterval), ("recoveryProbeInterval", self.recoveryProbeInterval),
            ("headerTimeout", self.headerTimeout), ("bodyTimeout", self.bodyTimeout), ("idleTimeout", self.idleTimeout),
            ("fragmentTimeout", self.fragmentTimeout),
        ] {
            try require(duration > .zero, "\(name) must be longer than zero")
        }
        if let maximumConnections = self.maximumConnections {
            try require(
                (1...10_000_000).contains(maximumConnections),
                "maximumConnections \(maximumConnections) is not in 1–10,000,000"
            )
        }
        if let resyncInterval = self.resyncInterval {
            try require(resyncInterval > .zero, "resyncInterval must be longer than zero")
        }
        return self
    }
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
