import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// In an HTTP connection's pipeline, between Hummingbird's connection-state handler and its async channel: takes the
/// sends `InlineSend` admits and answers them from the event loop; every other request goes on to the router as read.
///
/// Answers leave in request order. A send is taken only when the router owes no answer and holds no unfinished
/// request; while its answer is pending, what the connection reads next waits here (and reading stops) until it is
/// written. A send declined after its head was held (a body the scanner cannot read, trailers) is handed to the router
/// whole, as it came.
final class InlineSendHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private struct Held {
        var head: HTTPRequest
        var admission: InlineSend.Admission
        var body: ByteBuffer
    }

    private enum State {
        /// Parts go to the router.
        case routing
        /// An admitted send's head is held while its body arrives.
        case collecting(Held)
        /// An admitted send is being answered; later parts wait in `waiting`.
        case answering
    }

    private let send: InlineSend
    private let serverName: String
    private var state = State.routing
    private var context: ChannelHandlerContext?
    /// Requests handed to the router whose answer has not been written whole.
    private var routerAnswersOwed = 0
    /// A request handed to the router has not been read to its end.
    private var routerRequestOpen = false
    private var waiting = CircularBuffer<HTTPRequestPart>()
    private var readDeferred = false
    private var firedSinceReadComplete = false
    private var date = HTTPDate()

    init(send: InlineSend, serverName: String) {
        self.send = send
        self.serverName = serverName
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.take(Self.unwrapInboundIn(data), context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.firedSinceReadComplete = false
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.waiting.removeAll()
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if case .answering = self.state {
            self.readDeferred = true
        } else {
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = Self.unwrapOutboundIn(data) { self.routerAnswersOwed -= 1 }
        context.write(data, promise: promise)
    }

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch self.state {
        case .answering:
            self.waiting.append(part)
        case .collecting(var held):
            switch part {
            case .body(let chunk):
                // Out of the state first, so the body's buffer is not shared and grows in place.
                self.state = .routing
                held.body.writeImmutableBuffer(chunk)
                self.state = .collecting(held)
            case .end(let trailers):
                if trailers == nil, held.body.readableBytes == held.admission.length {
                    self.answer(held, context: context)
                } else {
                    self.route(held, context: context)
                    self.take(part, context: context)
                }
            case .head:
                self.route(held, context: context)
                self.take(part, context: context)
            }
        case .routing:
            switch part {
            case .head(let head):
                if self.routerAnswersOwed == 0, !self.routerRequestOpen, let admission = self.send.admit(head) {
                    let body = context.channel.allocator.buffer(capacity: admission.length)
                    self.state = .collecting(Held(head: head, admission: admission, body: body))
                    return
                }
                self.routerAnswersOwed += 1
                self.routerRequestOpen = true
            case .body:
                break
            case .end:
                self.routerRequestOpen = false
            }
            self.fire(part, context: context)
        }
    }

    /// Hands a held send's head and body to the router; its end follows through `take`.
    private func route(_ held: Held, context: ChannelHandlerContext) {
        self.state = .routing
        self.routerAnswersOwed += 1
        self.routerRequestOpen = true
        self.fire(.head(held.head), context: context)
        if held.body.readableBytes > 0 { self.fire(.body(held.body), context: context) }
    }

    private func answer(_ held: Held, context: ChannelHandlerContext) {
        self.state = .answering
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let started = self.send.answer(held.body, from: held.admission.token) { reply in
            handler.eventLoop.execute { handler.value.deliver(reply) }
        }
        if !started {
            self.route(held, context: context)
            self.take(.end(nil), context: context)
        }
    }

    private func deliver(_ reply: InlineSend.Reply) {
        guard case .answering = self.state, let context = self.context else { return }
        var fields = reply.headerFields
        fields[.date] = self.date.now()
        fields[.server] = self.serverName
        context.write(
            Self.wrapOutboundOut(.head(HTTPResponse(status: reply.status, headerFields: fields))),
            promise: nil
        )
        context.write(Self.wrapOutboundOut(.body(reply.body)), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        self.state = .routing
        self.takeWaiting(context: context)
    }

    /// Takes what was read while an answer was pending, until it is all taken or another answer is pending.
    private func takeWaiting(context: ChannelHandlerContext) {
        while !self.isAnswering, let part = self.waiting.popFirst() {
            self.take(part, context: context)
        }
        if self.firedSinceReadComplete {
            self.firedSinceReadComplete = false
            context.fireChannelReadComplete()
        }
        if !self.isAnswering, self.readDeferred {
            self.readDeferred = false
            context.read()
        }
    }

    private var isAnswering: Bool {
        if case .answering = self.state { return true }
        return false
    }

    private func fire(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        self.firedSinceReadComplete = true
        context.fireChannelRead(Self.wrapInboundOut(part))
    }
}
