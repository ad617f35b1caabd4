import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import WotsCore
import WotsRelay

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the HTTP API and WebSocket stream until SIGTERM or SIGINT."
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(
        help: ArgumentHelp(
            "sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.",
            discussion: "Defaults to $WOTS_DATABASE_URL, else sqlite:./wots-data/relay.sqlite."
        )
    )
    var database: String?

    @Option(help: "Messages kept per recipient before senders get mailbox_full.")
    var mailboxCapacity = 10_000

    @Option(help: "Largest envelope accepted, in bytes.")
    var maxEnvelopeSize = 65_536

    @Option(help: "Messages per second each account may send (sustained; the burst is four times this).")
    var sendRate: Double = 50

    @Option(help: "Registrations per minute from one address (sustained; the burst is twenty).")
    var registrationsPerMinute: Double = 10

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard (0...65_535).contains(self.port) else { throw ValidationError("--port \(self.port) is not in 0–65535") }
        guard self.mailboxCapacity > 0 else { throw ValidationError("--mailbox-capacity must be at least 1") }
        guard (1_024...16_777_216).contains(self.maxEnvelopeSize) else {
            throw ValidationError("--max-envelope-size must be between 1,024 and 16,777,216 bytes")
        }
        guard self.sendRate > 0, self.registrationsPerMinute > 0 else {
            throw ValidationError("--send-rate and --registrations-per-minute must be positive")
        }
        guard Logger.Level(rawValue: self.logLevel) != nil else {
            throw ValidationError(
                "--log-level \(self.logLevel) is not one of trace, debug, info, notice, warning, error, critical"
            )
        }
        _ = try DatabaseLocation(self.databaseURL)
    }

    var databaseURL: String {
        self.database ?? ProcessInfo.processInfo.environment["WOTS_DATABASE_URL"] ?? "sqlite:./wots-data/relay.sqlite"
    }

    var relayConfiguration: RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.host = self.host
        configuration.port = self.port
        configuration.mailboxCapacity = self.mailboxCapacity
        configuration.maximumEnvelopeSize = self.maxEnvelopeSize
        configuration.maximumRequestSize = max(configuration.maximumRequestSize, self.maxEnvelopeSize * 2)
        configuration.maximumFrameSize = max(configuration.maximumFrameSize, self.maxEnvelopeSize * 2)
        configuration.sendRate = RateLimit(perSecond: self.sendRate, burst: self.sendRate * 4)
        configuration.registrationRate = RateLimit(
            perSecond: self.registrationsPerMinute / 60,
            burst: max(20, self.registrationsPerMinute)
        )
        return configuration
    }

    func run() async throws {
        let level = Logger.Level(rawValue: self.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "wots.relay")
        let location = try DatabaseLocation(self.databaseURL)
        let bus = EventBus()
        let backend = try await location.open(bus: bus, logger: logger)
        var configuration = self.relayConfiguration
        if case .postgres = location { configuration.resyncInterval = .seconds(30) }
        let relayService = RelayService(
            configuration: configuration,
            backend: backend,
            bus: bus,
            logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(
                services: backend.services.map { .init(service: $0) } + [
                    .init(service: relayService, successTerminationBehavior: .gracefullyShutdownGroup)
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }
}
