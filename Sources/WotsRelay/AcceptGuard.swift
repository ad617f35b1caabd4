import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// On the listening channel: caps open connections and backs off when the process runs out of descriptors.
///
/// - A connection past `maximumConnections` is accepted and closed at once, so its client learns at once instead of
///   waiting in the kernel's backlog; a warning says so at most once per `warningInterval`.
/// - When `accept` fails with `EMFILE`, `ENFILE`, `ENOBUFS` or `ENOMEM` (recoverable: NIO leaves the socket readable,
///   so it would retry at once and spin), accepting pauses for a back-off that doubles from 10 ms to 1 s while the
///   failures go on.
final class AcceptGuard: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never
    typealias OutboundOut = Never

    private let maximumConnections: Int
    private let warningInterval: Duration
    private let logger: Logger
    private var openConnections = 0
    private var backOff: TimeAmount = .zero
    private var isPaused = false
    private var readIsPending = false
    private var lastRefusalWarning: ContinuousClock.Instant?
    private var lastExhaustionWarning: ContinuousClock.Instant?
    private var refusedSinceWarning = 0

    init(maximumConnections: Int, warningInterval: Duration = .seconds(10), logger: Logger) {
        self.maximumConnections = maximumConnections
        self.warningInterval = warningInterval
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = Self.unwrapInboundIn(data)
        self.backOff = .zero
        guard self.openConnections < self.maximumConnections else {
            // Logged before the close, so the log says so by the time the refused client sees it.
            defer { child.close(promise: nil) }
            self.refusedSinceWarning += 1
            self.warnOncePerInterval(&self.lastRefusalWarning) {
                self.logger.warning(
                    "connection cap reached: closing new connections at once",
                    metadata: [
                        "maximumConnections": "\(self.maximumConnections)", "refused": "\(self.refusedSinceWarning)",
                    ]
                )
                self.refusedSinceWarning = 0
            }
            return
        }
        self.openConnections += 1
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        child.closeFuture.hop(to: context.eventLoop).whenComplete { _ in loopBound.value.openConnections -= 1 }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, Self.isExhaustion(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        self.backOff = self.backOff == .zero ? .milliseconds(10) : min(self.backOff * 2, .seconds(1))
        self.isPaused = true
        self.warnOncePerInterval(&self.lastExhaustionWarning) {
            self.logger.warning(
                "accept failed: out of descriptors or memory; pausing accepts",
                metadata: [
                    "errno": "\(error.errnoCode)", "pause": "\(self.backOff)", "open": "\(self.openConnections)",
                ]
            )
        }
        // Turning autoRead off takes the listening socket out of the event loop's interest set: a socket that stays
        // readable while accept fails would otherwise wake the loop again at once.
        let channel = context.channel
        _ = channel.setOption(ChannelOptions.autoRead, value: false)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: self.backOff) {
            let (handler, context) = loopBound.value
            handler.isPaused = false
            _ = channel.setOption(ChannelOptions.autoRead, value: true)
            if handler.readIsPending {
                handler.readIsPending = false
                context.read()
            }
        }
    }

    func read(context: ChannelHandlerContext) {
        guard !self.isPaused else {
            self.readIsPending = true
            return
        }
        context.read()
    }

    private func warnOncePerInterval(_ last: inout ContinuousClock.Instant?, _ warn: () -> Void) {
        let now = ContinuousClock.now
        if let previous = last, now - previous < self.warningInterval { return }
        last = now
        warn()
    }

    private static func isExhaustion(_ code: Int32) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code)
    }
}
