import Foundation
import NIOCore
import NIOPosix

/// One HTTP/1.1 keep-alive connection that posts a list of bodies one after another, each once the answer to the
/// one before came, served on its event loop by a `PostHandler`: the store shape's client, which spends a byte scan
/// per answer where AsyncHTTPClient spent about a quarter of a millisecond of the cores it shares with the relay.
final class PostConnection: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<PostHandler>

    private init(channel: any Channel, handler: NIOLoopBound<PostHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects to `http://HOST:PORT` (the relay's base URL).
    static func open(baseURL: String) async throws -> PostConnection {
        guard let components = URLComponents(string: baseURL), components.scheme == "http",
            let host = components.host, let port = components.port
        else { throw BenchError("not an http://HOST:PORT URL: \(baseURL)") }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let made = loop.makePromise(of: NIOLoopBound<PostHandler>.self)
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = PostHandler(host: "\(host):\(port)")
                    try channel.pipeline.syncOperations.addHandler(handler)
                    made.succeed(NIOLoopBound(handler, eventLoop: channel.eventLoop))
                }
            }
            .connect(host: host, port: port)
            .get()
        return PostConnection(channel: channel, handler: try await made.futureResult.get())
    }

    /// POSTs each body to `path` with the session as bearer, one in flight, until all were answered or `deadline`
    /// (ns) passed. Returns how many answers had each status.
    func post(_ bodies: [ByteBuffer], to path: String, session: String, until deadline: UInt64) async throws
        -> [UInt: Int]
    {
        let done = self.channel.eventLoop.makePromise(of: [UInt: Int].self)
        let handler = self.handler
        self.channel.eventLoop.execute {
            handler.value.post(bodies, to: path, session: session, until: deadline, done: done)
        }
        return try await done.futureResult.get()
    }

    func close() async { try? await self.channel.close() }
}

/// The client side of `PostConnection` on its event loop: writes a request, reads its answer (a head, then a body of
/// `Content-Length` bytes or chunks), counts its status, writes the next.
final class PostHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Reading {
        case head
        case body(remaining: Int)
        case chunks
    }

    private let host: String
    private var context: ChannelHandlerContext?
    private var unread: ByteBuffer?
    private var reading = Reading.head
    private var status: UInt = 0
    private var bodies: [ByteBuffer] = []
    private var next = 0
    private var head = ByteBuffer()
    private var deadline: UInt64 = 0
    private var statuses: [UInt: Int] = [:]
    private var done: EventLoopPromise<[UInt: Int]>?

    init(host: String) { self.host = host }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelInactive(context: ChannelHandlerContext) {
        self.done?.fail(BenchError("the relay closed a keep-alive connection while posting"))
        self.done = nil
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.done?.fail(error)
        self.done = nil
        context.close(promise: nil)
    }

    func post(
        _ bodies: [ByteBuffer],
        to path: String,
        session: String,
        until deadline: UInt64,
        done: EventLoopPromise<[UInt: Int]>
    ) {
        self.bodies = bodies
        self.next = 0
        self.deadline = deadline
        self.statuses = [:]
        self.done = done
        self.head = ByteBuffer(
            string: "POST \(path) HTTP/1.1\r\nHost: \(self.host)\r\nAuthorization: Bearer \(session)\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
        )
        self.writeNext()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = Self.unwrapInboundIn(data)
        if var unread = self.unread {
            unread.writeBuffer(&incoming)
            incoming = unread
        }
        self.unread = nil
        while self.readAnswer(&incoming) {}
        if incoming.readableBytes > 0 {
            var rest = context.channel.allocator.buffer(capacity: max(incoming.readableBytes * 2, 1024))
            rest.writeBuffer(&incoming)
            self.unread = rest
        }
    }

    /// Reads as much of an answer as has arrived; true when more may be read.
    private func readAnswer(_ buffer: inout ByteBuffer) -> Bool {
        switch self.reading {
        case .head:
            guard let end = buffer.withUnsafeReadableBytes({ FrameScan.end(of: "\r\n\r\n", in: $0) }) else {
                return false
            }
            let head = buffer.readString(length: end) ?? ""
            self.status = UInt(head.dropFirst(9).prefix(3)) ?? 0
            // "\r\n" is one Character in Swift, so the head is split on it as a string.
            let fields = head.lowercased().components(separatedBy: "\r\n")
            if fields.contains("transfer-encoding: chunked") {
                self.reading = .chunks
            } else {
                let length = fields.first { $0.hasPrefix("content-length:") }.flatMap { field in
                    Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                }
                self.reading = .body(remaining: length ?? 0)
            }
            return true
        case .body(let remaining):
            let taken = min(remaining, buffer.readableBytes)
            buffer.moveReaderIndex(forwardBy: taken)
            guard taken == remaining else {
                self.reading = .body(remaining: remaining - taken)
                return false
            }
            self.answered()
            return true
        case .chunks:
            guard let end = buffer.withUnsafeReadableBytes({ FrameScan.end(of: "\r\n", in: $0) }),
                let size = Int(buffer.getString(at: buffer.readerIndex, length: end - 2) ?? "", radix: 16),
                buffer.readableBytes >= end + size + 2
            else { return false }
            buffer.moveReaderIndex(forwardBy: end + size + 2)
            if size == 0 { self.answered() }
            return true
        }
    }

    private func answered() {
        self.reading = .head
        self.statuses[self.status, default: 0] += 1
        self.writeNext()
    }

    private func writeNext() {
        guard let context else { return }
        guard self.next < self.bodies.count, now() < self.deadline else {
            self.done?.succeed(self.statuses)
            self.done = nil
            return
        }
        let body = self.bodies[self.next]
        self.next += 1
        var head = self.head
        head.writeString("\(body.readableBytes)\r\n\r\n")
        context.write(Self.wrapOutboundOut(head), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(body), promise: nil)
    }
}
