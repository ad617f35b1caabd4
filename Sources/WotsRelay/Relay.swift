public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import ServiceLifecycle
public import WotsCore
import WotsCrypto
import WotsStorage
import WotsTransparency

/// The relay: builds the Hummingbird application (HTTP API + WebSocket stream) and the services it needs.
public struct Relay: Sendable {
    public let configuration: RelayConfiguration
    public let storage: RelayStorage
    public let bus: EventBus
    public let metrics: RelayMetrics
    /// The relay's random id, signed into every login so a login here is useless at another relay.
    public let relayID: [UInt8]
    let challengeMinter: ChallengeMinter
    let logger: Logger
    let sendLimiter: TokenBucketLimiter
    let accounts: AccountCache
    let hub: DeliveryHub
    let clock: RelayClock
    let logPublisher: LogPublisher

    /// Loads (or creates, on first start) the relay id and the log key, logs the directory entries made before the
    /// log existed, and prepares the relay.
    /// - Parameter clock: the time delivery timers, health probes and authentication deadlines run on.
    public init(
        configuration: RelayConfiguration,
        storage: RelayStorage,
        bus: EventBus = EventBus(),
        clock: RelayClock = .continuous,
        logger: Logger
    ) async throws {
        self.configuration = try configuration.validated()
        self.storage = storage
        self.bus = bus
        self.metrics = RelayMetrics()
        self.relayID = try await storage.authentication.relayID(storingIfAbsent: SecureRandom.bytes(16))
        self.challengeMinter = ChallengeMinter(
            key: try await storage.authentication.relaySecret(
                named: ChallengeMinter.keyName,
                storingIfAbsent: SecureRandom.bytes(32)
            ),
            relayID: self.relayID
        )
        self.logger = logger
        let (publisher, backfilled) = try await LogPublisher.load(storage: storage, relayID: self.relayID)
        self.logPublisher = publisher
        if backfilled > 0 {
            logger.notice(
                "logged directory entries made before the transparency log",
                metadata: ["leaves": "\(backfilled)"]
            )
        }
        self.sendLimiter = TokenBucketLimiter(limit: configuration.sendRate)
        self.accounts = AccountCache(storage: storage, bus: bus, lifetime: configuration.accountCacheLifetime)
        self.clock = clock
        let intervals = [configuration.pingInterval, configuration.resyncInterval].compactMap { $0 }
        self.hub = DeliveryHub(bus: bus, clock: clock, tickRound: intervals.min()! / 2)
    }

    /// The verifier key of the transparency log's checkpoints (`NAME+KEYID+BASE64`), as `GET /v1/relay` shows it.
    public var logVerifierKey: String { self.logPublisher.key.verifierKey }

    /// How many WebSockets are open on this relay process right now.
    public var openStreamCount: Int { self.hub.count }

    /// The router alone, for route tests.
    public func buildRouter() -> Router<RelayRequestContext> {
        let authenticator = self.makeAuthenticator()
        let acceptor = self.makeAcceptor()
        let acknowledger = self.makeAcknowledger()
        let router = Router(context: RelayRequestContext.self)
        router.add(middleware: ErrorMiddleware(metrics: self.metrics))
        if !self.configuration.trustedProxies.ranges.isEmpty {
            router.add(middleware: ClientAddressMiddleware(proxies: self.configuration.trustedProxies))
        }
        if let webClient = self.configuration.webClient {
            router.add(middleware: WebClientMiddleware(client: webClient))
        }
        self.healthRoutes.registerProbes(on: router)
        DirectoryRoutes(storage: self.storage, publisher: self.logPublisher).register(on: router)
        LogRoutes(publisher: self.logPublisher).register(on: router)
        AuthenticationRoutes(
            authenticator: authenticator,
            logKey: self.logVerifierKey,
            configuration: self.configuration,
            challengeLimiter: TokenBucketLimiter(limit: self.configuration.challengeRate)
        ).register(on: router)
        RegistrationRoutes(
            storage: self.storage,
            configuration: self.configuration,
            bus: self.bus,
            metrics: self.metrics,
            limiter: TokenBucketLimiter(limit: self.configuration.registrationRate),
            logger: self.logger,
            relayID: authenticator.relayID
        ).register(on: router)
        let accountRoutes = AccountRoutes(
            storage: self.storage,
            accounts: self.accounts,
            configuration: self.configuration,
            bus: self.bus,
            authenticator: authenticator,
            restoreLimiter: TokenBucketLimiter(limit: self.configuration.restoreRate),
            restoreCeiling: TokenBucketLimiter(limit: self.configuration.restoreCeiling)
        )
        accountRoutes.registerPublic(on: router)
        let authenticated = router.group("/v1").add(middleware: SessionMiddleware(authenticator: authenticator))
        MessageRoutes(
            storage: self.storage,
            configuration: self.configuration,
            acceptor: acceptor,
            acknowledger: acknowledger,
            metrics: self.metrics,
            clock: self.clock
        )
        .register(on: authenticated)
        GroupMessageRoutes(
            acceptor: self.makeGroupAcceptor(),
            acknowledger: self.makeAcknowledger(),
            configuration: self.configuration,
            clock: self.clock
        )
        .register(on: authenticated)
        NoticeRoutes(storage: self.storage, configuration: self.configuration, metrics: self.metrics)
            .register(on: authenticated)
        accountRoutes.registerAuthenticated(on: authenticated)
        BlobRoutes(
            storage: self.storage,
            configuration: self.configuration,
            metrics: self.metrics,
            limiter: self.sendLimiter,
            clock: self.clock
        )
        .register(on: authenticated)
        return router
    }

    /// The whole application: HTTP routes, the WebSocket stream, the delivery hub and the sweeper.
    /// - Parameters:
    ///   - services: more services to run beside the relay (a database client, PostgreSQL notifications, the
    ///     administration application).
    ///   - tls: serve HTTPS and WSS with this store's certificate; default nil, plain HTTP.
    ///   - onServerRunning: called with the listening channel (its local address tells the port when it was 0).
    public func buildApplication(
        services: [any Service] = [],
        tls: CertificateStore? = nil,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let session = StreamSession(
            authenticator: self.makeAuthenticator(),
            configuration: self.configuration,
            acceptor: self.makeAcceptor(),
            groupAcceptor: self.makeGroupAcceptor(),
            acknowledger: self.makeAcknowledger(),
            mailboxes: self.storage.mailboxes,
            hub: self.hub,
            bus: self.bus,
            metrics: self.metrics,
            clock: self.clock
        )
        let sweeper = Sweeper(
            storage: self.storage,
            configuration: self.configuration,
            metrics: self.metrics,
            clock: self.clock,
            logger: self.logger
        )
        let maximumConnections =
            self.configuration.maximumConnections ?? DescriptorLimit.connectionCap(forLimit: DescriptorLimit.current)
        let serverName = "wots-relay"
        let inlineSend = self.configuration.answersSendsInline ? self.makeInlineSend() : nil
        return Application(
            router: self.buildRouter(),
            // The hub pings every socket from one relay-wide timer (a per-socket auto-ping task costs ~3 KiB per idle
            // connection); a peer that stops acknowledging for two intervals is dropped by TCP_USER_TIMEOUT.
            server: HTTPServerBuilder { [configuration = self.configuration] responder in
                try TunedChildChannel(
                    base: StreamChildChannel(
                        responder: responder,
                        idleTimeout: configuration.idleTimeout,
                        maximumFrameSize: configuration.maximumFrameSize,
                        session: session,
                        inlineSend: inlineSend,
                        serverName: serverName
                    ),
                    userTimeout: configuration.pingInterval * 2,
                    edge: .init(
                        headerTimeout: configuration.headerTimeout,
                        bodyTimeout: configuration.bodyTimeout,
                        fragmentTimeout: configuration.fragmentTimeout
                    )
                )
                .secured(by: tls)
            },
            configuration: .init(
                address: .hostname(self.configuration.host, port: self.configuration.port),
                serverName: serverName
            ),
            services: services + [
                self.accounts, self.hub, sweeper, self.makeHealthMonitor(),
                StreamRevoker(
                    storage: self.storage,
                    accounts: self.accounts,
                    hub: self.hub,
                    bus: self.bus,
                    logger: self.logger
                ),
            ],
            onServerRunning: { [logger = self.logger] channel in
                let guardInstalled = channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptGuard(maximumConnections: maximumConnections, logger: logger),
                        position: .first
                    )
                }
                do {
                    try await guardInstalled.get()
                    logger.info("accepting connections", metadata: ["maximumConnections": "\(maximumConnections)"])
                } catch {
                    logger.error("could not install the connection cap", metadata: ["error": "\(error)"])
                }
                await onServerRunning(channel)
            },
            logger: Self.libraryLogger(from: self.logger)
        )
    }

    /// The logger Hummingbird and the WebSocket library get: never below debug, because at trace they log request
    /// headers and the first bytes of every WebSocket frame (sessions and tokens among them).
    public static func libraryLogger(from logger: Logger) -> Logger {
        var libraryLogger = logger
        libraryLogger.logLevel = max(logger.logLevel, .debug)
        return libraryLogger
    }

    private func makeHealthMonitor() -> some Service {
        HealthMonitor(
            storage: self.storage,
            healthyInterval: self.configuration.healthProbeInterval,
            recoveryInterval: self.configuration.recoveryProbeInterval,
            clock: self.clock,
            logger: self.logger
        )
    }

    private func makeAcknowledger() -> MailboxAcknowledger {
        MailboxAcknowledger(storage: self.storage, hub: self.hub, metrics: self.metrics)
    }

    private func makeAuthenticator() -> Authenticator {
        Authenticator(
            relayID: self.relayID,
            minter: self.challengeMinter,
            storage: self.storage,
            accounts: self.accounts,
            configuration: self.configuration
        )
    }

    func makeInlineSend() -> InlineSend {
        InlineSend(
            authenticator: self.makeAuthenticator(),
            acceptor: self.makeAcceptor(),
            metrics: self.metrics,
            maximumRequestSize: self.configuration.maximumRequestSize,
            logger: self.logger
        )
    }

    private func makeAcceptor() -> MessageAcceptor {
        MessageAcceptor(
            storage: self.storage,
            accounts: self.accounts,
            hub: self.hub,
            configuration: self.configuration,
            metrics: self.metrics,
            sendLimiter: self.sendLimiter,
            clock: self.clock
        )
    }
}
