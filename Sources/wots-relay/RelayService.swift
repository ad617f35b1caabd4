import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import WotsCore
import WotsRelay

/// Prepares the database, then runs the relay application until graceful shutdown drains it.
struct RelayService: Service {
    let configuration: RelayConfiguration
    let backend: DatabaseBackend
    let bus: EventBus
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
        let application = relay.buildApplication { channel in
            let port = channel.localAddress?.port ?? 0
            FileHandle.standardOutput.write(Data("wots-relay listening on http://\(host):\(port)\n".utf8))
        }
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            self.logger.notice(
                "stopping: closing WebSockets and finishing requests under way",
                metadata: ["websockets": "\(relay.openStreamCount)"]
            )
        }
    }
}
