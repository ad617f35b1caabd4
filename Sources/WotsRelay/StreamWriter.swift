import NIOCore
import NIOWebSocket
import WotsCore

/// Writes one socket's frames straight to its channel, through its `StreamOutbox`: what is written while the event
/// loop is busy goes out in one hop and one flush (a delivered message is five frames). A close frame written here
/// starts the close handshake in the socket's `StreamSocketHandler`; `CloseFence` keeps any frame from following it.
struct StreamWriter: Sendable {
    let channel: any Channel
    /// Longer text is split into continuation frames.
    let maximumFrameSize: Int
    private let outbox = StreamOutbox()

    init(channel: any Channel, maximumFrameSize: Int) {
        self.channel = channel
        self.maximumFrameSize = maximumFrameSize
    }

    /// Encodes `frames` now, on the caller's thread, for `write(_:)`.
    func encode(_ frames: [RelayFrame]) throws -> [WebSocketFrame] {
        var encoded: [WebSocketFrame] = []
        encoded.reserveCapacity(frames.count)
        for frame in frames { self.append(text: try frame.jsonBytes(), to: &encoded) }
        return encoded
    }

    /// Writes `frames` in order at the event loop's next turn, with whatever else was written meanwhile, and
    /// flushes once; the future succeeds once the kernel took them all.
    @discardableResult
    func write(_ frames: [WebSocketFrame]) -> EventLoopFuture<Void> {
        self.outbox.write(frames, to: self.channel)
    }

    func send(_ frames: [RelayFrame]) async throws {
        guard !frames.isEmpty else { return }
        try await self.write(try self.encode(frames)).get()
    }

    func send(_ frame: RelayFrame) async throws { try await self.send([frame]) }

    /// Writes `frame` without waiting; a socket that is gone is noticed by its read loop.
    func post(_ frame: RelayFrame) {
        guard let frames = try? self.encode([frame]) else { return }
        self.write(frames)
    }

    func ping() { self.write([WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())]) }

    /// Sends a close frame; the socket's handler then waits for the peer's and closes the connection.
    func close(_ code: WebSocketErrorCode, reason: String?) async throws {
        let frame = StreamSocketHandler.closeFrame(code, reason: reason, allocator: self.channel.allocator)
        try await self.write([frame]).get()
    }

    private func append(text: [UInt8], to frames: inout [WebSocketFrame]) {
        let allocator = self.channel.allocator
        guard text.count > self.maximumFrameSize else {
            frames.append(WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(bytes: text)))
            return
        }
        var start = 0
        while start < text.count {
            let end = min(start + self.maximumFrameSize, text.count)
            frames.append(
                WebSocketFrame(
                    fin: end == text.count,
                    opcode: start == 0 ? .text : .continuation,
                    data: allocator.buffer(bytes: text[start..<end])
                )
            )
            start = end
        }
    }
}

/// Fails any frame written after a close frame: RFC 6455 §5.5.1 forbids data after it, and frames written by
/// `StreamWriter` do not pass the WebSocket library's own close state.
final class CloseFence: ChannelOutboundHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var isClosed = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = Self.unwrapOutboundIn(data)
        guard !self.isClosed else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if frame.opcode == .connectionClose { self.isClosed = true }
        context.write(data, promise: promise)
    }
}
