import Foundation
import HTTPTypes
import Histogram
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Synchronization
import WotsCore

/// One authenticated WebSocket to `/v1/stream`.
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

    struct State {
        var outbound: WebSocketOutboundWriter?
        var ready: CheckedContinuation<Void, any Error>?
        var isReady = false
        var failure: (any Error)?
        /// Message keys not acknowledged yet, each already in its JSON form `{"id":"…","sender":"…"}`.
        var pendingAcks: [String] = []
        /// Whether an `ack` frame awaits its reply (`AckPolicy.coalesced`).
        var isAckUnanswered = false
        /// `send` frames not answered yet.
        var inFlight = 0
        var windowWaiter: CheckedContinuation<Void, Never>?
    }

    let role: Role
    let collector: Collector
    let state = Mutex(State())
    let acks: AckPolicy

    init(role: Role, collector: Collector, acks: AckPolicy = .coalesced) {
        self.role = role
        self.collector = collector
        self.acks = acks
    }

    /// Connects and returns once the relay said `ready`; the connection then lives in `task` until closed.
    static func open(
        url: String,
        session: String,
        role: Role,
        collector: Collector,
        logger: Logger,
        acks: AckPolicy = .coalesced
    ) async throws -> OpenStream {
        let connection = StreamConnection(role: role, collector: collector, acks: acks)
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(session)"
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
        let task = Task {
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound,
                    outbound,
                    _ in
                    connection.state.withLock { $0.outbound = outbound }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        try await connection.handle(text)
                    }
                }
                connection.fail(BenchError("connection closed before ready"))
            } catch {
                connection.fail(error)
            }
        }
        do {
            try await connection.waitReady()
        } catch {
            task.cancel()
            throw error
        }
        return (connection, task)
    }

    private func waitReady() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = self.state.withLock { state -> Result<Void, any Error>? in
                if state.isReady { return .success(()) }
                if let failure = state.failure { return .failure(failure) }
                state.ready = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func fail(_ error: any Error) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if !state.isReady && state.failure == nil { state.failure = error }
            defer { state.ready = nil }
            return state.ready
        }
        waiter?.resume(throwing: error)
    }

    private func handle(_ text: String) async throws {
        switch FrameScan.type(of: text) {
        case "message":
            guard let id = FrameScan.id(in: text), let sender = FrameScan.sender(in: text) else { return }
            try await self.received(id: id, sender: sender)
        case "group_message":
            // The key is inside the binary body: its header names the sender and the message id.
            guard let body = FrameScan.value(of: "\"body\":\"", in: text, last: false),
                let bytes = Data(base64Encoded: body),
                let envelope = try? GroupEnvelope(serialized: Array(bytes))
            else { return }
            let key = envelope.header.messageKey
            try await self.received(id: key.id.lowercasedString, sender: key.sender.description)
        case "accepted":
            self.collector.state.withLock { $0.accepted += 1 }
            self.releaseWindow()
        case "error":
            let code = FrameScan.value(of: "\"code\":\"", in: text, last: false) ?? "?"
            self.collector.state.withLock {
                $0.refused += 1
                $0.refusals[code, default: 0] += 1
            }
            // Every frame gets a reply: on a sender's socket an error answers a `send`, on a recipient's an `ack`.
            if self.role == .sender { self.releaseWindow() } else { try await self.ackAnswered() }
        case "acked":
            try await self.ackAnswered()
        case "ready":
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                state.isReady = true
                defer { state.ready = nil }
                return state.ready
            }
            waiter?.resume()
        default:
            break
        }
    }

    /// Counts a delivered message (and its latency while measured) and acknowledges it in batches.
    private func received(id: String, sender: String) async throws {
        let arrival = now()
        self.collector.state.withLock { state in
            state.delivered += 1
            if state.trackLatency, let sent = state.sentAt.removeValue(forKey: id), arrival > sent {
                state.latency.record((arrival - sent) / 1000)  // microseconds
            }
        }
        let batch = self.state.withLock { state -> [String]? in
            state.pendingAcks.append("{\"id\":\"\(id)\",\"sender\":\"\(sender)\"}")
            return self.acks == .each || !state.isAckUnanswered ? self.takeAcks(&state) : nil
        }
        if let batch { try await self.writeAck(batch) }
    }

    /// The relay answered an `ack` frame: under `coalesced`, what arrived meanwhile goes now.
    private func ackAnswered() async throws {
        guard self.acks == .coalesced else { return }
        let batch = self.state.withLock { state -> [String]? in
            state.isAckUnanswered = false
            return state.pendingAcks.isEmpty ? nil : self.takeAcks(&state)
        }
        if let batch { try await self.writeAck(batch) }
    }

    /// The keys for the next `ack` frame, at most as many as the relay takes in one.
    private func takeAcks(_ state: inout State) -> [String] {
        let count = min(state.pendingAcks.count, AcknowledgeRequest.maximumCount)
        let batch = Array(state.pendingAcks.prefix(count))
        state.pendingAcks.removeFirst(count)
        state.isAckUnanswered = true
        return batch
    }

    private func releaseWindow() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inFlight -= 1
            defer { state.windowWaiter = nil }
            return state.windowWaiter
        }
        waiter?.resume()
    }

    private var outbound: WebSocketOutboundWriter? { self.state.withLock { $0.outbound } }

    /// Acknowledges by (sender, id); under `coalesced` the next frame waits for this one's reply (`ackAnswered`).
    private func writeAck(_ keys: [String]) async throws {
        self.collector.state.withLock { $0.ackFrames += 1 }
        let list = keys.joined(separator: ",")
        try await self.outbound?.writeTextMessage("{\"messages\":[\(list)],\"type\":\"ack\"}")
    }

    func flushAcks() async throws {
        let batch = self.state.withLock { state -> [String] in
            defer { state.pendingAcks.removeAll() }
            return state.pendingAcks
        }
        if !batch.isEmpty { try await self.writeAck(batch) }
    }

    /// Sends a frame without waiting for its answer.
    func send(_ frame: String) async throws {
        self.state.withLock { $0.inFlight += 1 }
        try await self.outbound?.writeTextMessage(frame)
    }

    /// Sends a frame once fewer than `window` frames are unanswered.
    func send(_ frame: String, window: Int) async throws {
        while true {
            let full = self.state.withLock { $0.inFlight >= window }
            if !full { break }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.inFlight < window { return true }
                    state.windowWaiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        try await self.send(frame)
    }

    func close() async {
        try? await self.outbound?.close(.normalClosure, reason: nil)
    }
}
