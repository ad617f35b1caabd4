import HummingbirdCore
import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A server child channel tuned for many idle WebSockets.
///
/// - Receive buffers start at 512 bytes and grow with what arrives: NIO keeps each connection's last receive
///   buffer for the next read, and its default first guess (2 KiB) would be held by every idle socket.
/// - With `userTimeout`, data the peer does not acknowledge within it closes the connection (Linux
///   `TCP_USER_TIMEOUT`), so a relay-wide ping to a vanished peer ends its socket without a per-socket timer.
struct TunedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let userTimeout: Duration?

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
        return self.base.setup(channel: channel, logger: logger)
    }

    func handle(value: Base.Value, logger: Logger) async {
        await self.base.handle(value: value, logger: logger)
    }
}
