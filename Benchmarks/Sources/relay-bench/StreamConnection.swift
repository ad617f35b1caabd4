import Foundation
import NIOCore
import NIOPosix

/// One authenticated WebSocket to `/v1/stream`, served by a `StreamClientHandler` on its event loop.
final class StreamConnection: Sendable {
    /// A recipient acks what arrives, a sender sends (each of its `send` frames gets `accepted` or `error`), an idle
    /// socket only stays open.
    enum Role: Sendable { case recipient, sender, idle }

    /// How a recipient acknowledges.
    enum AckPolicy: String, Sendable, CaseIterable {
        /// As the wots clients do (`AcknowledgementQueue`): one `ack` frame unanswered at a time, what arrives
        /// meanwhile going out together when it is answered.
        case coalesced
        /// One `ack` frame per message as it arrives, replies not waited for (the wots clients before 2026-11-29).
        case each
    }

    let channel: any Channel
    private let handler: NIOLoopBound<StreamClientHandler>

    private init(channel: any Channel, handler: NIOLoopBound<StreamClientHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects, upgrades with the session as bearer, and returns once the relay said `ready`.
    static func open(
        url: String,
        session: String,
        role: Role,
        collector: Collector,
        acks: AckPolicy = .coalesced
    ) async throws -> StreamConnection {
        let endpoint = try StreamEndpoint(url)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let ready = loop.makePromise(of: Void.self)
        let made = loop.makePromise(of: NIOLoopBound<StreamClientHandler>.self)
        let request = endpoint.upgradeRequest(session: session)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = StreamClientHandler(
                            role: role,
                            acks: acks,
                            collector: collector,
                            upgradeRequest: request,
                            ready: ready
                        )
                        try channel.pipeline.syncOperations.addHandler(handler)
                        made.succeed(NIOLoopBound(handler, eventLoop: channel.eventLoop))
                    }
                }
                .connect(host: endpoint.host, port: endpoint.port)
                .get()
        } catch {
            made.fail(error)
            ready.fail(error)
            throw error
        }
        let connection = StreamConnection(channel: channel, handler: try await made.futureResult.get())
        do {
            try await ready.futureResult.get()
        } catch {
            try? await channel.close()
            throw error
        }
        return connection
    }

    /// Sends `frames` (each a whole masked `send` frame), at most `window` unanswered, until all were written or
    /// `deadline` (ns) passed.
    func send(_ frames: [ByteBuffer], window: Int, until deadline: UInt64) async throws {
        let done = self.channel.eventLoop.makePromise(of: Int.self)
        self.handler.execute { $0.sendWindowed(frames, window: window, until: deadline, done: done) }
        _ = try await done.futureResult.get()
    }

    /// Sends frame k at `start + offset + k * interval` (ns), not waiting for answers.
    /// - Returns: how many were written more than 1 ms after their time.
    func send(_ frames: [ByteBuffer], start: UInt64, offset: Double, interval: Double) async throws -> Int {
        let done = self.channel.eventLoop.makePromise(of: Int.self)
        self.handler.execute { $0.sendScheduled(frames, start: start, offset: offset, interval: interval, done: done) }
        return try await done.futureResult.get()
    }

    /// From now on, records the latency of each message found in `schedule` (message id → scheduled send, ns).
    func measureLatency(against schedule: [MessageIDKey: UInt64]?) async throws {
        try await self.handler.submit { $0.measureLatency(against: schedule) }
    }

    /// The latencies (µs) recorded since `measureLatency`.
    func latencies() async throws -> [UInt64] { try await self.handler.submit { $0.latencies } }

    func flushAcks() async throws { try await self.handler.submit { $0.flushAcknowledgements() } }

    /// Sends what waits to be acknowledged and returns once the relay answered every `ack` frame, i.e. wrote every
    /// deletion: what a shape left for the relay's writer is done before the next shape's clock starts.
    func settleAcks(timeout: TimeAmount = .seconds(60)) async throws {
        let settled = self.channel.eventLoop.makePromise(of: Void.self)
        self.handler.execute { $0.settleAcknowledgements(settled, timeout: timeout) }
        try await settled.futureResult.get()
    }

    /// Starts the close handshake and waits until the socket closed (at most 5 s, then closes it).
    func close() async {
        self.handler.execute { $0.sendClose() }
        let force = self.channel.eventLoop.scheduleTask(in: .seconds(5)) { [channel] in channel.close(promise: nil) }
        try? await self.channel.closeFuture.get()
        force.cancel()
    }
}

extension NIOLoopBound where Value == StreamClientHandler {
    fileprivate func execute(_ body: @escaping @Sendable (StreamClientHandler) -> Void) {
        self.eventLoop.execute { body(self.value) }
    }

    fileprivate func submit<Result: Sendable>(_ body: @escaping @Sendable (StreamClientHandler) -> Result) async throws
        -> Result
    {
        try await self.eventLoop.submit { body(self.value) }.get()
    }
}

/// Where a `ws://HOST:PORT/PATH` URL points, and the HTTP/1.1 upgrade request for it.
struct StreamEndpoint {
    let host: String
    let port: Int
    let pathAndQuery: String

    init(_ url: String) throws {
        guard let components = URLComponents(string: url), components.scheme == "ws", let host = components.host,
            let port = components.port
        else { throw BenchError("not a ws://HOST:PORT/… URL: \(url)") }
        self.host = host
        self.port = port
        self.pathAndQuery = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    func upgradeRequest(session: String) -> String {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        return "GET \(self.pathAndQuery) HTTP/1.1\r\nHost: \(self.host):\(self.port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
            + "Authorization: Bearer \(session)\r\n\r\n"
    }
}
