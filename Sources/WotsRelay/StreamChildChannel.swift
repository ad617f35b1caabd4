import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The relay's connections: HTTP/1.1 answered by the router, and WebSocket upgrades of `/v1/stream` served by a
/// `StreamSocketHandler` in the channel's pipeline.
///
/// Built like the WebSocket library's `HTTP1WebSocketUpgradeChannel`, except that an upgraded socket is handed to its
/// handler and the connection's task ends: the library keeps a task waiting on every socket for its whole life.
struct StreamChildChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// Upgraded; the socket's handler serves it from now on.
        case stream
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade was asked for and refused (another path, or a malformed request): answered 400.
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    static let streamPath = "/v1/stream"

    let responder: HTTPChannelHandler.Responder
    let idleTimeout: Duration
    /// The largest frame, and the largest message once fragments are joined.
    let maximumFrameSize: Int
    let session: StreamSession
    /// Answers plain sends on the event loop (nil: the router answers every request).
    let inlineSend: InlineSend?
    /// The `Server` header the application writes, which inline answers carry too.
    let serverName: String

    init(
        responder: @escaping HTTPChannelHandler.Responder,
        idleTimeout: Duration,
        maximumFrameSize: Int,
        session: StreamSession,
        inlineSend: InlineSend?,
        serverName: String
    ) {
        self.responder = Self.redirectingUpgrades(to: responder)
        self.idleTimeout = idleTimeout
        self.maximumFrameSize = maximumFrameSize
        self.session = session
        self.inlineSend = inlineSend
        self.serverName = serverName
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: self.maximumFrameSize,
                shouldUpgrade: { channel, head in
                    upgradeAttempted.value = true
                    return channel.eventLoop.makeSucceededFuture(Self.isStream(head) ? HTTPHeaders() : nil)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        try self.serveStream(on: channel, head: head, logger: logger)
                        return .stream
                    }
                }
            )
            let serverUpgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try operations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: self.idleTimeout, logger: logger)
                        )
                        if let inlineSend = self.inlineSend {
                            try operations.addHandler(InlineSendHandler(send: inlineSend, serverName: self.serverName))
                        }
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                        return upgradeAttempted.value ? .failedUpgrade(http) : .notUpgraded(http)
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: serverUpgrade)
            // Requests are taken one at a time by the async channel; Hummingbird answers errors itself.
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false
            configuration.enableResponseHeaderValidation = false
            let upgradeResult = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: configuration
            )
            return Value(upgradeResult: upgradeResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .stream:
                return
            case .notUpgraded(let http):
                await self.handleHTTP(asyncChannel: http, logger: logger)
            case .failedUpgrade(let http):
                logger.debug("refused a WebSocket upgrade")
                await Self.answerFailedUpgrade(on: http, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("the connection closed before its first request")
        } catch {
            logger.debug("a connection failed before its first request", metadata: ["error": "\(error)"])
        }
    }

    private static func isStream(_ head: HTTPRequestHead) -> Bool {
        head.method == .GET && head.uri.split(separator: "?", maxSplits: 1).first == Substring(Self.streamPath)
    }

    /// Puts the socket's handlers after the frame codecs the upgrader added: `CloseFence`, then the handler that
    /// serves the stream.
    private func serveStream(on channel: any Channel, head: HTTPRequestHead, logger: Logger) throws {
        let operations = channel.pipeline.syncOperations
        let encoder = try operations.handler(type: WebSocketFrameEncoder.self)
        try operations.addHandler(CloseFence(), position: .after(encoder))
        let request = try HTTPRequest(head, secure: false, splitCookie: false)
        let writer = StreamWriter(channel: channel, maximumFrameSize: self.maximumFrameSize)
        let handler = StreamSocketHandler(maximumMessageSize: self.maximumFrameSize, logger: logger) {
            [session = self.session] handler, context in
            let resumable = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
            return StreamConnection(
                session: session,
                writer: writer,
                head: request,
                logger: logger,
                resumeReading: {
                    resumable.eventLoop.execute {
                        let (handler, context) = resumable.value
                        handler.resumeReading(context: context)
                    }
                }
            )
        }
        try operations.addHandler(handler)
    }

    /// An upgrade asked for on a connection that already served a request is answered with a redirect to the same
    /// place and a close: NIO reads upgrade headers only on a connection's first request.
    private static func redirectingUpgrades(
        to responder: @escaping HTTPChannelHandler.Responder
    ) -> HTTPChannelHandler.Responder {
        { request, responseWriter, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, responseWriter, channel)
            }
            let location = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            let response = HTTPResponse(
                status: .temporaryRedirect,
                headerFields: [.connection: "close", .location: location]
            )
            try await responseWriter.writeResponse(response)
            throw UpgradeAfterFirstRequest()
        }
    }

    private static func answerFailedUpgrade(
        on http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>,
        logger: Logger
    ) async {
        do {
            try await http.executeThenClose { _, outbound in
                let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            }
        } catch {
            logger.trace("could not answer a refused upgrade", metadata: ["error": "\(error)"])
        }
    }
}

/// Ends a connection whose upgrade came after its first request, once the redirect was written.
private struct UpgradeAfterFirstRequest: Error {}
