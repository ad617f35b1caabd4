import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Between the HTTP decoder and the upgrade handler: what the upgrade handler would otherwise leave unanswered.
///
/// - A request the decoder cannot parse before its first head gets `400` and a close (later ones are answered so by
///   Hummingbird).
/// - A request asking for a WebSocket anywhere but a well-formed `GET /v1/stream` upgrade gets `400` (`426` for a
///   WebSocket version other than 13) and a close, and is logged at debug only.
/// - Every request's body must end within `bodyTimeout` after the read that brought its head, else the connection is
///   closed. The deadline is set only when that read ends with the body still to come: a request read whole in one go
///   (nearly every one) costs no timer.
final class RequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    static let streamPath = "/v1/stream"

    private let edge: EdgeGuardHandler
    private let bodyTimeout: TimeAmount
    private let logger: Logger
    private var sawHead = false
    private var awaitingEnd = false
    private var refused = false
    private var bodyDeadline: Scheduled<Void>?

    init(edge: EdgeGuardHandler, bodyTimeout: Duration, logger: Logger) {
        self.edge = edge
        self.bodyTimeout = TimeAmount(bodyTimeout)
        self.logger = logger
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.bodyDeadline?.cancel()
        self.bodyDeadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.refused else { return }
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            if !self.sawHead, let refusal = Self.upgradeRefusal(for: head) {
                self.refuse(refusal.status, extraHeaders: refusal.extraHeaders, why: "misplaced or malformed upgrade")
                return
            }
            self.sawHead = true
            self.awaitingEnd = true
        case .end:
            self.awaitingEnd = false
            self.bodyDeadline?.cancel()
            self.bodyDeadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if self.awaitingEnd, self.bodyDeadline == nil, !self.refused {
            self.bodyDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: self.bodyTimeout) {
                self.logger.debug("closing a connection whose request body did not arrive in time")
                context.close(promise: nil)
            }
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !self.sawHead else {
            context.fireErrorCaught(error)
            return
        }
        if !self.refused { self.refuse("400 Bad Request", why: "unparsable request") }
    }

    private func refuse(_ status: String, extraHeaders: String = "", why: String) {
        self.refused = true
        self.logger.debug("refused a request", metadata: ["status": "\(status)", "reason": "\(why)"])
        self.edge.refuse(status: status, extraHeaders: extraHeaders)
    }

    /// Nil when `head` asks for no upgrade or a well-formed WebSocket upgrade of the stream.
    static func upgradeRefusal(for head: HTTPRequestHead) -> (status: String, extraHeaders: String)? {
        let upgrade = head.headers["upgrade"]
        guard !upgrade.isEmpty else { return nil }
        let badRequest = (status: "400 Bad Request", extraHeaders: "")
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == Self.streamPath, head.method == .GET, upgrade.count == 1,
            upgrade[0].lowercased() == "websocket",
            head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "upgrade" })
        else { return badRequest }
        let versions = head.headers["sec-websocket-version"]
        guard versions == ["13"] else {
            return (status: "426 Upgrade Required", extraHeaders: "sec-websocket-version: 13\r\n")
        }
        let keys = head.headers["sec-websocket-key"]
        guard keys.count == 1, let key = Data(base64Encoded: keys[0]), key.count == 16 else { return badRequest }
        return nil
    }
}
