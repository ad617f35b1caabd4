import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import WotsCore
import WotsRelay
import WotsRelayLaunch

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the HTTP API and WebSocket stream until SIGTERM or SIGINT.",
        discussion: """
            Start-up: the configuration is checked, the listening address is tried before the database is touched, \
            then the database is opened (PostgreSQL is retried for --startup-timeout) and migrated. SIGTERM or \
            SIGINT stops accepting, closes WebSockets, lets requests finish for at most --drain-timeout and exits 0. \
            Under systemd (Type=notify) READY=1 goes to $NOTIFY_SOCKET once the database is ready and every \
            address listens, STOPPING=1 when the stop begins.

            Every option is also read from an environment variable, WOTS_ and its name in capitals with _ for -: \
            --tls-cert is WOTS_TLS_CERT, --send-rate is WOTS_SEND_RATE (WOTS_DATABASE_URL still sets --database). \
            --config FILE reads the same KEY=VALUE lines from a file (systemd's EnvironmentFile syntax). A flag \
            wins over the environment, the environment over the file, the file over the default. An empty value \
            counts as unset. Repeatable options take a comma-separated list; flags take 1/yes/true/on or \
            0/no/false/off. A WOTS_ key in the file that is no serve option is an error; in the environment it is \
            ignored (the wots CLI reads WOTS_HOME, WOTS_RELAY, WOTS_CA_FILE) and listed by --check-config.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Read settings from FILE: KEY=VALUE lines, as systemd's EnvironmentFile (for example /etc/wots/relay.env).",
            valueName: "FILE"
        )
    )
    var config: String?

    @Flag(
        help: "Check the configuration, print every setting with its source (secrets hidden) and exit; 0 when valid."
    )
    var checkConfig = false

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(
        help: ArgumentHelp(
            "sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.",
            discussion: "Defaults to sqlite:./wots-data/relay.sqlite. Also $WOTS_DATABASE (or $WOTS_DATABASE_URL)."
        )
    )
    var database: String?

    @Option(help: "Messages kept per recipient before senders get mailbox_full.")
    var mailboxCapacity = 10_000

    @Option(help: "Most recipients one group message may list (1–256); a larger group gets invalid_argument.")
    var maxGroupMembers = 256

    @Option(
        help: ArgumentHelp(
            "Bytes of envelopes kept per recipient before senders get mailbox_quota_exceeded.",
            discussion: "Checked with the message count, in the transaction that stores. Suffixes KiB, MiB, GiB.",
            valueName: "SIZE"
        )
    )
    var mailboxQuota = "256MiB"

    @Option(
        help: ArgumentHelp(
            "Largest attachment blob accepted, in encrypted bytes; a larger upload gets blob_too_large.",
            discussion: "Suffixes KiB, MiB, GiB.",
            valueName: "SIZE"
        )
    )
    var maxBlobSize = "100MiB"

    @Option(
        help: ArgumentHelp(
            "Bytes of attachment blobs one account may keep (unfinished, or not yet fetched by every recipient).",
            discussion: "An upload past it gets blob_quota_exceeded. Suffixes KiB, MiB, GiB.",
            valueName: "SIZE"
        )
    )
    var blobQuota = "1GiB"

    @Option(
        help: ArgumentHelp(
            "How long undelivered mail is kept before it expires and its sender gets an expired notice.",
            discussion: "Notices are kept 30 days. Expiry runs every minute, or every half retention if shorter.",
            valueName: "DURATION"
        )
    )
    var retention = "30d"

    @Option(help: "Largest envelope accepted, in bytes.")
    var maxEnvelopeSize = 65_536

    @Option(help: "Messages per second each account may send (sustained; the burst is four times this).")
    var sendRate: Double = 50

    @Option(help: "Registrations per minute from one address (sustained; the burst is twenty).")
    var registrationsPerMinute: Double = 10

    @Option(
        help: ArgumentHelp(
            "Who may register: open (anyone), invite (with a code from `admin invites create`) or closed (nobody).",
            discussion: "Default open, for a personal relay: register your own account before sharing the address.",
            valueName: "MODE"
        )
    )
    var registration = "open"

    @Option(
        help: ArgumentHelp(
            "Free disk space kept in reserve (SQLite): below it new mail is refused with storage_full.",
            discussion: "Acknowledgements, logins and deletions go on. Suffixes KiB, MiB, GiB.",
            valueName: "SIZE"
        )
    )
    var minFreeDisk = "64MiB"

    @Option(help: ArgumentHelp("Longest any database operation may take before a 503.", valueName: "DURATION"))
    var databaseTimeout = "5s"

    @Option(help: ArgumentHelp("Longest the database may take to answer at start.", valueName: "DURATION"))
    var startupTimeout = "30s"

    @Option(help: ArgumentHelp("Longest a shutdown waits for requests under way.", valueName: "DURATION"))
    var drainTimeout = "8s"

    @Option(
        help: ArgumentHelp(
            "Most connections (HTTP and WebSocket) open at once; one more is closed at once.",
            discussion: "Default: nine tenths of the descriptor limit (raised to the hard limit at start), less 64."
        )
    )
    var maxConnections: Int?

    @Option(
        help: ArgumentHelp("Longest a new connection may take to send its request header.", valueName: "DURATION")
    )
    var headerTimeout = "10s"

    @Option(help: ArgumentHelp("Longest a request body may take after its header.", valueName: "DURATION"))
    var bodyTimeout = "30s"

    @Option(help: ArgumentHelp("Longest an HTTP keep-alive connection may sit idle.", valueName: "DURATION"))
    var idleTimeout = "60s"

    @Option(
        help: ArgumentHelp("Longest a fragmented WebSocket message may take to finish.", valueName: "DURATION")
    )
    var fragmentTimeout = "10s"

    // A plain flag, not `inversion: .prefixedNo`: the parser dumps an inverted pair as two unrelated flags, so
    // WOTS_WEB=off would be read and then dropped; WOTS_NO_WEB=1 maps to --no-web like every other flag.
    @Flag(
        name: .customLong("no-web"),
        help: ArgumentHelp(
            "Serve the API only, not the browser client at /.",
            discussion: "By default the client is served from --web-root, else share/wots/web of the installation "
                + "(../share or ../../share from the executable), else the source checkout's web/ folder."
        )
    )
    var noWeb = false

    @Option(
        help: ArgumentHelp(
            "Folder of the browser client (index.html, css/, js/, img/); read once at start.",
            valueName: "DIR"
        )
    )
    var webRoot: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @OptionGroup(title: "Transport")
    var transport: TransportOptions

    func validate() throws {
        do {
            _ = try self.settings()
        } catch let error as WotsError {
            throw ValidationError(error.reason)
        }
        guard Logger.Level(rawValue: self.logLevel) != nil else {
            throw ValidationError(
                "--log-level \(self.logLevel) is not one of trace, debug, info, notice, warning, error, critical"
            )
        }
    }

    var databaseURL: String {
        self.database ?? "sqlite:./wots-data/relay.sqlite"
    }

    /// Everything the flags say, checked.
    func settings() throws -> ServeSettings {
        var relay = RelayConfiguration()
        relay.host = self.host
        relay.port = self.port
        relay.mailboxCapacity = self.mailboxCapacity
        relay.maximumGroupMembers = self.maxGroupMembers
        relay.maximumEnvelopeSize = self.maxEnvelopeSize
        let quota = try HumanUnits.bytes(self.mailboxQuota, name: "--mailbox-quota")
        guard quota >= self.maxEnvelopeSize, quota <= Int64(Int.max) else {
            throw WotsError(
                .invalidArgument,
                "--mailbox-quota \(self.mailboxQuota) must hold at least one envelope of --max-envelope-size "
                    + "(\(self.maxEnvelopeSize) bytes)"
            )
        }
        relay.mailboxQuota = Int(quota)
        relay.maximumBlobSize = try HumanUnits.bytes(self.maxBlobSize, name: "--max-blob-size")
        relay.blobQuota = try HumanUnits.bytes(self.blobQuota, name: "--blob-quota")
        guard relay.maximumBlobSize >= 16, relay.blobQuota >= relay.maximumBlobSize else {
            throw WotsError(
                .invalidArgument,
                "--blob-quota \(self.blobQuota) must hold at least one blob of --max-blob-size \(self.maxBlobSize), "
                    + "which must be at least 16 bytes"
            )
        }
        relay.messageRetention = try HumanUnits.duration(self.retention, name: "--retention")
        relay.sweepInterval = min(relay.sweepInterval, relay.messageRetention / 2)
        relay.maximumRequestSize = max(relay.maximumRequestSize, self.maxEnvelopeSize * 2)
        relay.maximumFrameSize = max(relay.maximumFrameSize, self.maxEnvelopeSize * 2)
        relay.sendRate = RateLimit(perSecond: self.sendRate, burst: self.sendRate * 4)
        relay.maximumConnections = self.maxConnections
        relay.headerTimeout = try HumanUnits.duration(self.headerTimeout, name: "--header-timeout")
        relay.bodyTimeout = try HumanUnits.duration(self.bodyTimeout, name: "--body-timeout")
        relay.idleTimeout = try HumanUnits.duration(self.idleTimeout, name: "--idle-timeout")
        relay.fragmentTimeout = try HumanUnits.duration(self.fragmentTimeout, name: "--fragment-timeout")
        guard let registration = RegistrationMode(rawValue: self.registration) else {
            throw WotsError(.invalidArgument, "--registration \(self.registration) is not one of open, invite, closed")
        }
        relay.registration = registration
        relay.registrationRate = RateLimit(
            perSecond: self.registrationsPerMinute / 60,
            burst: max(20, self.registrationsPerMinute)
        )
        let storage = StorageSettings(
            location: try DatabaseLocation(self.databaseURL),
            minimumFreeSpace: try HumanUnits.bytes(self.minFreeDisk, name: "--min-free-disk"),
            operationTimeout: try HumanUnits.duration(self.databaseTimeout, name: "--database-timeout"),
            startupTimeout: try HumanUnits.duration(self.startupTimeout, name: "--startup-timeout")
        )
        if case .postgres = storage.location { relay.resyncInterval = .seconds(30) }
        let transport = try self.transport.settings(publicHost: self.host, publicPort: self.port)
        relay.trustedProxies = transport.trustedProxies
        return ServeSettings(
            relay: try relay.validated(),
            transport: transport,
            storage: try storage.validated(),
            drainTimeout: try HumanUnits.duration(self.drainTimeout, name: "--drain-timeout")
        )
    }

    func run() async throws {
        if self.checkConfig {
            try self.printCheckedConfiguration()
            return
        }
        let level = Logger.Level(rawValue: self.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "wots.relay")
        let descriptorLimit = DescriptorLimit.raiseToHardLimit()
        let settings = try self.settings()
        try await ListeningAddress.ensureAvailable(host: settings.relay.host, port: settings.relay.port)
        if let administration = settings.transport.administration {
            try await ListeningAddress.ensureAvailable(host: administration.host, port: administration.port)
        }
        let certificates = try settings.transport.tls.map {
            try CertificateStore(certificatePath: $0.certificatePath, keyPath: $0.keyPath)
        }
        if let certificates {
            logger.info("TLS certificate loaded", metadata: ["certificate": "\(certificates.summary)"])
        }
        // Logged once the configuration is known good, so a start error stays one line.
        logger.info("descriptor limit", metadata: ["RLIMIT_NOFILE": "\(descriptorLimit)"])
        logger.info("registration", metadata: ["mode": "\(settings.relay.registration.rawValue)"])
        var relayConfiguration = settings.relay
        relayConfiguration.webClient = try self.loadWebClient(logger: logger)
        let bus = EventBus()
        let backend = try await settings.storage.open(bus: bus, logger: Relay.libraryLogger(from: logger))
        let relayService = RelayService(
            configuration: relayConfiguration,
            backend: backend,
            bus: bus,
            certificates: certificates,
            administration: settings.transport.administration,
            notifier: SystemdNotifier(environment: ProcessInfo.processInfo.environment),
            logger: logger
        )
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = backend.services.map { .init(service: $0) }
        services.append(.init(service: CertificateReloader(store: certificates, logger: logger)))
        services.append(.init(service: relayService, successTerminationBehavior: .gracefullyShutdownGroup))
        var group = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = settings.drainTimeout
        try await ServiceGroup(configuration: group).run()
        logger.notice("wots-relay stopped")
    }
}

extension Serve {
    /// The browser client, unless `--no-web`. An explicit `--web-root` that cannot be read stops the start; a client
    /// not found where it is looked for by default is logged, and the relay serves the API alone.
    func loadWebClient(logger: Logger) throws -> WebClient? {
        guard !self.noWeb else { return nil }
        if let webRoot = self.webRoot {
            return try WebClient.load(from: URL(fileURLWithPath: webRoot))
        }
        guard let root = WebClientLocation.defaultRoot() else {
            logger.warning("web client not found (give --web-root DIR, or --no-web); serving the API only")
            return nil
        }
        do {
            let client = try WebClient.load(from: root)
            logger.info("web client", metadata: ["root": "\(root.path)", "files": "\(client.files.count)"])
            return client
        } catch {
            logger.warning("web client not served", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// `--check-config`: the settings are already checked by `validate()`; the TLS files are loaded too, the
    /// database is not opened.
    func printCheckedConfiguration() throws {
        let settings = try self.settings()
        if let tls = settings.transport.tls {
            _ = try CertificateStore(certificatePath: tls.certificatePath, keyPath: tls.keyPath)
        }
        let invocation = ServeInvocation(Array(CommandLine.arguments.dropFirst()))
        let sources = try ServeConfigurationSources.resolve(
            arguments: invocation?.arguments ?? [],
            environment: ProcessInfo.processInfo.environment,
            options: ServeOption.ofServe
        )
        FileHandle.standardOutput.write(Data(ConfigurationReport(sources: sources).text.utf8))
    }
}

/// What `serve` runs with, checked.
struct ServeSettings: Sendable {
    var relay: RelayConfiguration
    var transport: TransportSettings
    var storage: StorageSettings
    var drainTimeout: Duration
}
