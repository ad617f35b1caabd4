import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import WotsCore
import WotsRelay
import WotsRelayLaunch

/// Prepares the database, then runs the relay application until graceful shutdown drains it.
struct RelayService: Service {
    let configuration: RelayConfiguration
    let backend: DatabaseBackend
    let bus: EventBus
    let certificates: CertificateStore?
    let administration: AdministrationAddress?
    let notifier: SystemdNotifier?
    let logger: Logger

    func run() async throws {
        try await self.backend.prepare()
        let relay = try await Relay(
            configuration: self.configuration,
            storage: self.backend.storage,
            bus: self.bus,
            logger: self.logger
        )
        let host = self.configuration.host
        let scheme = self.certificates == nil ? "http" : "https"
        let readiness = ReadinessAnnouncer(
            listeners: self.administration == nil ? 1 : 2,
            notifier: self.notifier,
            logger: self.logger
        )
        let administration = self.administration.map { address in
            relay.buildAdministrationApplication(host: address.host, port: address.port) { channel in
                let port = channel.localAddress?.port ?? 0
                Self.say("wots-relay administration (metrics, health) on http://\(address.host):\(port)")
                readiness.listenerStarted()
            }
        }
        let application = relay.buildApplication(
            services: administration.map { [$0] } ?? [],
            tls: self.certificates
        ) { channel in
            let port = channel.localAddress?.port ?? 0
            Self.say("wots-relay listening on \(scheme)://\(host):\(port)")
            readiness.listenerStarted()
        }
        try await withGracefulShutdownHandler {
            try await application.run()
            try await self.backend.finish()
        } onGracefulShutdown: {
            readiness.stopping()
            self.logger.notice(
                "stopping: closing WebSockets and finishing requests under way",
                metadata: ["websockets": "\(relay.openStreamCount)"]
            )
        }
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
