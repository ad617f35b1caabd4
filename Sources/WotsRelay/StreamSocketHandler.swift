import Logging
import NIOCore
import NIOWebSocket

/// Serves an upgraded `/v1/stream` socket from its channel pipeline: RFC 6455 (pings, the close handshake, fragmented
/// messages, UTF-8) here, and each whole message handed to its `StreamConnection`.
///
/// No task waits on an idle socket: a task parked in a read keeps the memory of the deepest call it made until it
/// ends (about 20 KiB a socket behind the WebSocket library's async loop), and idle sockets are most of a relay's.
final class StreamSocketHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// How long a socket may take to answer the close frame the relay sent before it is closed anyway.
    static let closeTimeout = TimeAmount.seconds(15)

    private enum CloseState {
        case open
        /// The relay sent its close frame and waits for the peer's.
        case closing(Scheduled<Void>)
        case closed
    }

    private let maximumMessageSize: Int
    private let logger: Logger
    private let makeConnection: (StreamSocketHandler, ChannelHandlerContext) -> StreamConnection
    private var connection: StreamConnection?
    private var closeState = CloseState.open
    /// The frames of a fragmented message so far.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    /// Whether reading waits until the connection caught up with the messages it was handed.
    private var isReadingPaused = false
    private var hasPendingRead = false

    init(
        maximumMessageSize: Int,
        logger: Logger,
        makeConnection: @escaping (StreamSocketHandler, ChannelHandlerContext) -> StreamConnection
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.logger = logger
        self.makeConnection = makeConnection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let connection = self.makeConnection(self, context)
        self.connection = connection
        connection.start()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .closing(let timeout) = self.closeState { timeout.cancel() }
        self.closeState = .closed
        self.connection?.ended()
        self.connection = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        guard frame.reservedBits.isEmpty else { return self.fail(.protocolError, context: context) }
        switch frame.opcode {
        case .connectionClose:
            self.receivedClose(frame, context: context)
        case .ping:
            guard frame.fin, frame.data.readableBytes < 126 else { return self.fail(.protocolError, context: context) }
            guard case .open = self.closeState else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(Self.wrapOutboundOut(pong), promise: nil)
        case .pong:
            guard frame.fin else { return self.fail(.protocolError, context: context) }
        case .text, .binary:
            guard self.fragments == nil else { return self.fail(.protocolError, context: context) }
            self.fragments = (frame.opcode, frame.unmaskedData)
            if frame.fin { self.finishMessage(context: context) }
        case .continuation:
            guard var fragments = self.fragments else { return self.fail(.protocolError, context: context) }
            self.fragments = nil
            guard fragments.data.readableBytes + frame.data.readableBytes <= self.maximumMessageSize else {
                return self.fail(.messageTooLarge, context: context)
            }
            var data = frame.unmaskedData
            fragments.data.writeBuffer(&data)
            self.fragments = fragments
            if frame.fin { self.finishMessage(context: context) }
        default:
            self.fail(.protocolError, context: context)
        }
    }

    /// Frames the relay writes pass here: a close frame starts the closing handshake.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard Self.unwrapOutboundIn(data).opcode == .connectionClose, case .open = self.closeState else {
            return context.write(data, promise: promise)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.cascade(to: promise)
        context.write(data, promise: written)
        self.awaitPeerClose(after: written.futureResult, context: context)
    }

    func read(context: ChannelHandlerContext) {
        guard !self.isReadingPaused else {
            self.hasPendingRead = true
            return
        }
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        self.logger.debug("closing a stream: the relay is shutting down")
        self.sendClose(.normalClosure, reason: "the relay is shutting down", context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // WebSocketProtocolErrorHandler, before this handler, already sent the close frame a framing error names.
        self.logger.debug("closing a stream after an error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    /// Stops reading until `resumeReading`; called while the connection has too many messages waiting.
    func pauseReading() { self.isReadingPaused = true }

    func resumeReading(context: ChannelHandlerContext) {
        guard self.isReadingPaused else { return }
        self.isReadingPaused = false
        if self.hasPendingRead {
            self.hasPendingRead = false
            context.read()
        }
    }

    private func finishMessage(context: ChannelHandlerContext) {
        guard let (opcode, data) = self.fragments else { return }
        self.fragments = nil
        guard case .open = self.closeState, let connection = self.connection else { return }
        let message: StreamMessage
        if opcode == .text {
            let text = Array(data.readableBytesView)
            guard Self.isUTF8(text) else {
                return self.fail(.dataInconsistentWithMessage, context: context)
            }
            message = .text(text)
        } else {
            message = .binary
        }
        if !connection.received(message) { self.pauseReading() }
    }

    /// Whether `bytes` are UTF-8; frames are JSON, nearly always ASCII, which is checked eight bytes at a time.
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        let isASCII = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                guard raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
                    return false
                }
                offset += 8
            }
            return raw[offset...].allSatisfy { $0 < 0x80 }
        }
        return isASCII || String(validating: bytes, as: UTF8.self) != nil
    }

    /// The peer's close frame: answered with one of ours (RFC 6455 §5.5.1) unless ours went first, then the socket ends.
    private func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        switch self.closeState {
        case .closed:
            return
        case .closing(let timeout):
            timeout.cancel()
            self.closeState = .closed
            context.close(promise: nil)
        case .open:
            self.closeState = .closed
            let reply = Self.closeFrame(
                Self.answerCode(toClosePayload: frame.unmaskedData),
                reason: nil,
                allocator: context.channel.allocator
            )
            let loopBoundContext = context.loopBound
            context.writeAndFlush(Self.wrapOutboundOut(reply)).whenComplete { _ in
                loopBoundContext.value.close(promise: nil)
            }
        }
    }

    /// The code a close frame is answered with: 1000, or 1002 for a payload that is malformed or names a code no
    /// endpoint may send.
    static func answerCode(toClosePayload payload: ByteBuffer) -> WebSocketErrorCode {
        var payload = payload
        guard payload.readableBytes > 0 else { return .normalClosure }
        guard let code = payload.readInteger(as: UInt16.self) else { return .protocolError }
        guard String(validating: payload.readableBytesView, as: UTF8.self) != nil else { return .protocolError }
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: return .normalClosure
        default: return .protocolError
        }
    }

    /// A violation of the protocol: the socket is closed with `code`, and nothing more it sends is read.
    private func fail(_ code: WebSocketErrorCode, context: ChannelHandlerContext) {
        self.logger.debug("closing a stream that broke RFC 6455", metadata: ["code": "\(code)"])
        self.fragments = nil
        self.sendClose(code, reason: nil, context: context)
    }

    private func sendClose(_ code: WebSocketErrorCode, reason: String?, context: ChannelHandlerContext) {
        guard case .open = self.closeState else { return }
        let frame = Self.closeFrame(code, reason: reason, allocator: context.channel.allocator)
        self.awaitPeerClose(after: context.writeAndFlush(Self.wrapOutboundOut(frame)), context: context)
    }

    /// After the relay's close frame: the connection's output is shut once the frame is out (as the WebSocket library
    /// did, so a peer that does not answer the close still sees the end), and the peer has `closeTimeout` to send its
    /// close frame before the socket is closed anyway.
    private func awaitPeerClose(after closeFrameWritten: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        let loopBoundContext = context.loopBound
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeTimeout) {
            loopBoundContext.value.close(promise: nil)
        }
        self.closeState = .closing(timeout)
        closeFrameWritten.hop(to: context.eventLoop).assumeIsolated().whenSuccess {
            loopBoundContext.value.close(mode: .output, promise: nil)
        }
    }

    static func closeFrame(_ code: WebSocketErrorCode, reason: String?, allocator: ByteBufferAllocator)
        -> WebSocketFrame
    {
        var data = allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(reason) }
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }
}

/// A whole message a client sent on `/v1/stream`.
enum StreamMessage: Sendable {
    /// UTF-8, checked.
    case text([UInt8])
    /// Binary messages are refused whatever they hold.
    case binary
}
