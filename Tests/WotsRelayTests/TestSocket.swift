import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import WotsCore
import WotsStorage

/// What a test socket saw next.
enum SocketEvent: Sendable, Equatable {
    case frame(RelayFrame)
    /// The relay closed the socket (or the connection ended).
    case closed
    /// Nothing came within the timeout.
    case timedOut

    var frame: RelayFrame? {
        if case .frame(let frame) = self { return frame }
        return nil
    }
}

/// A real WebSocket client on loopback that collects relay frames and sends client frames.
final class TestSocket: Sendable {
    private let inbox: FrameInbox
    private let outbound: WebSocketOutboundWriter
    private let task: Task<Void, any Error>

    private init(inbox: FrameInbox, outbound: WebSocketOutboundWriter, task: Task<Void, any Error>) {
        self.inbox = inbox
        self.outbound = outbound
        self.task = task
    }

    /// Connects to `/v1/stream` (with `query`, such as `?groups=true`), authenticating by header when
    /// `headerSession` is given.
    static func connect(port: Int, headerSession: String? = nil, query: String = "") async throws -> TestSocket {
        let inbox = FrameInbox()
        let (writers, writerContinuation) = AsyncStream.makeStream(of: WebSocketOutboundWriter.self)
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 1 << 20
        if let headerSession { configuration.additionalHeaders[.authorization] = "Bearer \(headerSession)" }
        var logger = Logger(label: "wots.test.socket")
        logger.logLevel = .critical
        let task = Task { [configuration, logger] in
            defer {
                inbox.close()
                writerContinuation.finish()
            }
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/stream\(query)",
                configuration: configuration,
                logger: logger
            ) { inbound, outbound, _ in
                writerContinuation.yield(outbound)
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message,
                        let frame = try? WireCoding.makeDecoder().decode(RelayFrame.self, from: Data(text.utf8))
                    else { continue }
                    inbox.append(frame)
                }
            }
        }
        var writerIterator = writers.makeAsyncIterator()
        guard let outbound = await writerIterator.next() else {
            try await task.value
            throw SocketError(description: "the WebSocket did not connect")
        }
        return TestSocket(inbox: inbox, outbound: outbound, task: task)
    }

    func send(_ frame: ClientFrame) async throws {
        try await self.outbound.writeTextMessage(
            String(decoding: try WireCoding.makeEncoder().encode(frame), as: UTF8.self)
        )
    }

    func send(_ body: ClientFrame.Body, ref: String? = nil) async throws {
        try await self.send(ClientFrame(body, ref: ref))
    }

    func sendRaw(_ text: String) async throws { try await self.outbound.writeTextMessage(text) }

    /// How long a frame that is due may take. Generous: under the whole suite's load on two cores a reply once took
    /// over 5 s, and a test that waits for nothing passes a short timeout of its own.
    static let patience: Duration = .seconds(20)

    /// The next frame, or whether the socket closed or nothing came within the timeout: two outcomes a test must
    /// tell apart. A timeout loses nothing: a frame that comes later is returned by the next call.
    func next(timeout: Duration = TestSocket.patience) async -> SocketEvent { await self.inbox.next(timeout: timeout) }

    /// The next frame that matches, skipping others; `.closed` or `.timedOut` when none comes.
    func next(where matches: (RelayFrame) -> Bool, timeout: Duration = TestSocket.patience) async -> SocketEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let event = await self.next(timeout: deadline - ContinuousClock.now)
            guard case .frame(let frame) = event else { return event }
            if matches(frame) { return event }
        }
        return .timedOut
    }

    /// The next `count` delivered messages, stopping early at a close or a timeout.
    func messages(_ count: Int, timeout: Duration = TestSocket.patience) async -> [DeliveredMessage] {
        var delivered: [DeliveredMessage] = []
        while delivered.count < count, let message = await self.next(timeout: timeout).frame?.deliveredMessage {
            delivered.append(message)
        }
        return delivered
    }

    func close() async {
        try? await self.outbound.close(.normalClosure, reason: nil)
        _ = try? await self.task.value
    }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// Frames received and not yet read, and the one reader waiting for them.
private final class FrameInbox: Sendable {
    private struct State {
        var frames: [RelayFrame] = []
        var isClosed = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<SocketEvent, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func append(_ frame: RelayFrame) {
        let waiter = self.state.withLock { state in
            guard let waiter = state.waiter else {
                state.frames.append(frame)
                return nil as CheckedContinuation<SocketEvent, Never>?
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: .frame(frame))
    }

    func close() {
        let waiter = self.state.withLock { state in
            state.isClosed = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume(returning: .closed)
    }

    func next(timeout: Duration) async -> SocketEvent {
        await withCheckedContinuation { continuation in
            let (ready, id) = self.state.withLock { state -> (SocketEvent?, UInt64) in
                if !state.frames.isEmpty { return (.frame(state.frames.removeFirst()), 0) }
                if state.isClosed { return (.closed, 0) }
                state.nextID += 1
                state.waiter = (state.nextID, continuation)
                return (nil, state.nextID)
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.state.withLock { state in
                    guard let waiter = state.waiter, waiter.id == id else {
                        return nil as CheckedContinuation<SocketEvent, Never>?
                    }
                    state.waiter = nil
                    return waiter.continuation
                }
                expired?.resume(returning: .timedOut)
            }
        }
    }
}

extension RelayFrame {
    var deliveredMessage: DeliveredMessage? {
        if case .message(let message) = self { return message }
        return nil
    }

    var deliveredGroupMessage: DeliveredGroupMessage? {
        if case .groupMessage(let message) = self { return message }
        return nil
    }
}
