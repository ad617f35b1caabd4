import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A server child channel tuned for many idle WebSockets.
///
/// - Receive buffers start at 512 bytes and grow with what arrives: NIO keeps each connection's last receive
///   buffer for the next read, and its default first guess (2 KiB) would be held by every idle socket.
/// - With `userTimeout`, data the peer does not acknowledge within it closes the connection (Linux
///   `TCP_USER_TIMEOUT`), so a relay-wide ping to a vanished peer ends its socket without a per-socket timer.
/// - With `edge`, an `EdgeGuardHandler` goes first in the pipeline and a `RequestGuard` before the HTTP upgrade
///   handler: header, body and WebSocket-fragment deadlines, unmasked frames refused, and every malformed or misplaced
///   request answered and closed.
struct TunedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    /// The deadlines the edge handlers enforce.
    struct EdgeSettings: Sendable {
        var headerTimeout: Duration
        var bodyTimeout: Duration
        var fragmentTimeout: Duration
    }

    let base: Base
    let userTimeout: Duration?
    var edge: EdgeSettings? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        do {
            let options = channel.syncOptions
            try options?.setOption(
                ChannelOptions.recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
            )
            #if canImport(Glibc)
                if let userTimeout {
                    let option = ChannelOptions.Types.SocketOption(
                        level: NIOBSDSocket.OptionLevel(rawValue: CInt(IPPROTO_TCP)),
                        name: NIOBSDSocket.Option(rawValue: TCP_USER_TIMEOUT)
                    )
                    let milliseconds =
                        userTimeout.components.seconds * 1_000
                        + userTimeout.components.attoseconds / 1_000_000_000_000_000
                    try options?.setOption(option, value: SocketOptionValue(milliseconds))
                }
            #endif
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        guard let edge else { return self.base.setup(channel: channel, logger: logger) }
        let edgeGuard = EdgeGuardHandler(
            headerTimeout: edge.headerTimeout,
            fragmentTimeout: edge.fragmentTimeout,
            logger: logger
        )
        do {
            // Behind TLS the guard reads and writes plaintext: it goes right after the TLS handler, never before it.
            let operations = channel.pipeline.syncOperations
            if let tls = try? operations.handler(type: NIOSSLServerHandler.self) {
                try operations.addHandler(edgeGuard, position: .after(tls))
            } else {
                try operations.addHandler(edgeGuard, position: .first)
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return self.base.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let upgrader = try operations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<StreamChildChannel.UpgradeResult>.self
            )
            let requestGuard = RequestGuard(edge: edgeGuard, bodyTimeout: edge.bodyTimeout, logger: logger)
            try operations.addHandler(requestGuard, position: .before(upgrader))
            edgeGuard.onUpgrade = { [weak requestGuard] in
                guard let requestGuard else { return }
                channel.pipeline.syncOperations.removeHandler(requestGuard, promise: nil)
            }
            return value
        }.nonisolated()
    }

    func handle(value: Base.Value, logger: Logger) async {
        var quieter = logger
        quieter.handler = ConnectionFailureLogHandler(base: logger.handler)
        await self.base.handle(value: value, logger: quieter)
    }
}
