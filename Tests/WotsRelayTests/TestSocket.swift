import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import WotsCore
import WotsStorage

/// A real WebSocket client on loopback that collects relay frames and sends client frames.
final class TestSocket: Sendable {
    private let frames: AsyncStream<RelayFrame>
    private let iterator: Mutex<AsyncStream<RelayFrame>.AsyncIterator?>
    private let outbound: WebSocketOutboundWriter
    private let task: Task<Void, any Error>

    private init(frames: AsyncStream<RelayFrame>, outbound: WebSocketOutboundWriter, task: Task<Void, any Error>) {
        self.frames = frames
        self.iterator = Mutex(frames.makeAsyncIterator())
        self.outbound = outbound
        self.task = task
    }

    /// Connects to `/v1/stream`, authenticating by header when `headerSession` is given.
    static func connect(port: Int, headerSession: String? = nil) async throws -> TestSocket {
        let (frames, frameContinuation) = AsyncStream.makeStream(of: RelayFrame.self)
        let (writers, writerContinuation) = AsyncStream.makeStream(of: WebSocketOutboundWriter.self)
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 1 << 20
        if let headerSession { configuration.additionalHeaders[.authorization] = "Bearer \(headerSession)" }
        var logger = Logger(label: "wots.test.socket")
        logger.logLevel = .critical
        let task = Task { [configuration, logger] in
            defer {
                frameContinuation.finish()
                writerContinuation.finish()
            }
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/stream",
                configuration: configuration,
                logger: logger
            ) { inbound, outbound, _ in
                writerContinuation.yield(outbound)
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message,
                        let frame = try? WireCoding.makeDecoder().decode(RelayFrame.self, from: Data(text.utf8))
                    else { continue }
                    frameContinuation.yield(frame)
                }
            }
        }
        var writerIterator = writers.makeAsyncIterator()
        guard let outbound = await writerIterator.next() else {
            try await task.value
            throw SocketError(description: "the WebSocket did not connect")
        }
        return TestSocket(frames: frames, outbound: outbound, task: task)
    }

    func send(_ frame: ClientFrame) async throws {
        try await self.outbound.writeTextMessage(
            String(decoding: try WireCoding.makeEncoder().encode(frame), as: UTF8.self)
        )
    }

    func sendRaw(_ text: String) async throws { try await self.outbound.writeTextMessage(text) }

    /// The next frame, or nil when the socket closed or nothing came within the timeout.
    func next(timeout: Duration = .seconds(5)) async -> RelayFrame? {
        let box = IteratorBox(iterator: self.iterator.withLock { $0.take() })
        defer { self.iterator.withLock { $0 = box.iterator } }
        return await withTaskGroup(of: RelayFrame?.self) { group in
            group.addTask { await box.next() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Frames until one matches, skipping others; nil on timeout.
    func next(where matches: (RelayFrame) -> Bool, timeout: Duration = .seconds(5)) async -> RelayFrame? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frame = await self.next(timeout: deadline - ContinuousClock.now) else { return nil }
            if matches(frame) { return frame }
        }
        return nil
    }

    func close() async {
        try? await self.outbound.close(.normalClosure, reason: nil)
        _ = try? await self.task.value
    }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// Lets one waiting `next()` own the iterator; a cancelled wait leaves it usable for the next call.
private final class IteratorBox: @unchecked Sendable {
    // Only one `next()` runs at a time (TestSocket.next is not called concurrently by the tests).
    var iterator: AsyncStream<RelayFrame>.AsyncIterator?

    init(iterator: AsyncStream<RelayFrame>.AsyncIterator?) { self.iterator = iterator }

    func next() async -> RelayFrame? {
        guard var iterator = self.iterator else { return nil }
        let frame = await iterator.next()
        self.iterator = iterator
        return frame
    }
}

extension RelayFrame {
    var deliveredMessage: DeliveredMessage? {
        if case .message(let message) = self { return message }
        return nil
    }
}
