import Logging
import NIOCore

/// The first handler of every connection, on raw bytes: what the HTTP and WebSocket decoders after it cannot enforce.
///
/// - The first request's header block must end within `headerTimeout` (slowloris); later requests are bounded by the
///   keep-alive idle timeout of the HTTP handlers.
/// - After a WebSocket upgrade it reads each client frame's header before the frame decoder does: an unmasked frame
///   (RFC 6455 §5.1) is never passed on and closes the socket with 1002; a fragmented message not finished within
///   `fragmentTimeout` closes it with 1008.
/// - It writes the refusals other handlers decide on (`refuse(status:)`), straight to the socket, then closes.
final class EdgeGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase {
        /// Reading the first request's header block.
        case header(RequestHeadScanner)
        /// The header asked for an upgrade: later bytes wait here until the response says whether it happened.
        case awaitingUpgrade(held: [ByteBuffer])
        /// Upgraded; bytes that came before the 101 are being passed on first.
        case webSocket(WebSocketFrameInspector)
        /// Plain HTTP after the first header, or refused: bytes pass (or are dropped) untouched.
        case http
        case refused
    }

    private let headerTimeout: TimeAmount
    private let fragmentTimeout: TimeAmount
    private let logger: Logger
    private var phase: Phase = .header(RequestHeadScanner())
    private var context: ChannelHandlerContext?
    private var headerDeadline: Scheduled<Void>?
    private var fragmentDeadline: Scheduled<Void>?
    /// Called once when the connection becomes a WebSocket, to take HTTP-only handlers out of the pipeline.
    var onUpgrade: () -> Void = {}

    init(headerTimeout: Duration, fragmentTimeout: Duration, logger: Logger) {
        self.headerTimeout = TimeAmount(headerTimeout)
        self.fragmentTimeout = TimeAmount(fragmentTimeout)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.headerDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: self.headerTimeout) {
            self.logger.debug("closing a connection whose request header did not arrive in time")
            self.refuse(status: "408 Request Timeout")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.cancelTimers()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.cancelTimers()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = Self.unwrapInboundIn(data)
        switch self.phase {
        case .header(var scanner):
            guard let end = scanner.scan(buffer.readableBytesView) else {
                self.phase = .header(scanner)
                context.fireChannelRead(data)
                return
            }
            self.headerDeadline?.cancel()
            self.headerDeadline = nil
            let head = buffer.getSlice(at: buffer.readerIndex, length: end)!
            let rest = buffer.getSlice(at: buffer.readerIndex + end, length: buffer.readableBytes - end)!
            context.fireChannelRead(Self.wrapInboundOut(head))
            if scanner.asksForUpgrade {
                self.phase = .awaitingUpgrade(held: rest.readableBytes > 0 ? [rest] : [])
            } else {
                self.phase = .http
                if rest.readableBytes > 0 { context.fireChannelRead(Self.wrapInboundOut(rest)) }
            }
        case .awaitingUpgrade(var held):
            held.append(buffer)
            self.phase = .awaitingUpgrade(held: held)
        case .webSocket(var inspector):
            self.inspect(buffer, with: &inspector, context: context)
        case .http:
            context.fireChannelRead(data)
        case .refused:
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .awaitingUpgrade(let held) = self.phase {
            let buffer = Self.unwrapOutboundIn(data)
            let upgraded = buffer.readableBytesView.starts(with: "HTTP/1.1 101".utf8)
            self.phase = upgraded ? .webSocket(WebSocketFrameInspector()) : .http
            if upgraded { self.onUpgrade() }
            context.write(data, promise: promise)
            // Passed on after this write returns: the upgrade handler is in the middle of writing its response.
            context.eventLoop.assumeIsolated().execute {
                guard let context = self.context else { return }
                for buffer in held {
                    switch self.phase {
                    case .webSocket(var inspector): self.inspect(buffer, with: &inspector, context: context)
                    case .http: context.fireChannelRead(Self.wrapInboundOut(buffer))
                    default: return
                    }
                }
            }
            return
        }
        context.write(data, promise: promise)
    }

    /// Writes a bodiless HTTP response with `status` (such as `400 Bad Request`) and closes the connection.
    func refuse(status: String, extraHeaders: String = "") {
        guard let context = self.context else { return }
        self.phase = .refused
        self.cancelTimers()
        let response = "HTTP/1.1 \(status)\r\nconnection: close\r\ncontent-length: 0\r\n\(extraHeaders)\r\n"
        self.writeThenClose(ByteBuffer(string: response), context: context)
    }

    private func inspect(
        _ buffer: ByteBuffer,
        with inspector: inout WebSocketFrameInspector,
        context: ChannelHandlerContext
    ) {
        let headers = inspector.inspect(buffer.readableBytesView)
        self.phase = .webSocket(inspector)
        for header in headers {
            guard header.isMasked else {
                if header.offset > 0 {
                    context.fireChannelRead(
                        Self.wrapInboundOut(buffer.getSlice(at: buffer.readerIndex, length: header.offset)!)
                    )
                }
                self.logger.debug("closing a WebSocket that sent an unmasked frame")
                self.closeWebSocket(code: 1002, reason: "client frames must be masked", context: context)
                return
            }
            if header.isControl { continue }
            if !header.isFinal, self.fragmentDeadline == nil {
                self.fragmentDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: self.fragmentTimeout) {
                    guard let context = self.context else { return }
                    self.logger.debug("closing a WebSocket whose fragmented message did not finish in time")
                    self.closeWebSocket(code: 1008, reason: "fragmented message not finished in time", context: context)
                }
            } else if header.isFinal {
                self.fragmentDeadline?.cancel()
                self.fragmentDeadline = nil
            }
        }
        context.fireChannelRead(Self.wrapInboundOut(buffer))
    }

    /// An unmasked close frame (servers never mask) with `code` and `reason`, then the connection closed.
    private func closeWebSocket(code: UInt16, reason: String, context: ChannelHandlerContext) {
        self.phase = .refused
        self.cancelTimers()
        var frame = ByteBuffer()
        let payloadLength = 2 + reason.utf8.count
        frame.writeInteger(UInt8(0x88))
        frame.writeInteger(UInt8(payloadLength))
        frame.writeInteger(code)
        frame.writeString(reason)
        self.writeThenClose(frame, context: context)
    }

    private func writeThenClose(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(Self.wrapOutboundOut(buffer)).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }

    private func cancelTimers() {
        self.headerDeadline?.cancel()
        self.headerDeadline = nil
        self.fragmentDeadline?.cancel()
        self.fragmentDeadline = nil
    }
}
