import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import WotsCore
import WotsStorage

/// One authenticated WebSocket on `/v1/stream`: queued then live messages out, acks and sends in.
struct StreamSession: Sendable {
    let authenticator: Authenticator
    let storage: RelayStorage
    let configuration: RelayConfiguration
    let acceptor: MessageAcceptor
    let hub: DeliveryHub
    let bus: EventBus
    let metrics: RelayMetrics

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, request: Request, logger: Logger)
        async throws
    {
        var messages = inbound.messages(maxSize: self.configuration.maximumFrameSize).makeAsyncIterator()
        guard let token = try await self.authenticate(headers: request.headers, messages: &messages, outbound: outbound)
        else {
            try await outbound.close(.policyViolation, reason: "authentication required")
            return
        }
        self.metrics.openConnections.increment()
        defer { self.metrics.openConnections.decrement() }
        logger.debug("stream opened", metadata: ["token": "\(token)"])
        try await Self.send(.ready(token: token), to: outbound)

        let courier = MailCourier(
            token: token,
            mailboxes: self.storage.mailboxes,
            metrics: self.metrics,
            outbound: outbound
        )
        let unregister = self.hub.register(courier)
        defer { unregister() }
        if let resyncInterval = self.configuration.resyncInterval { self.hub.resync(every: resyncInterval) }
        courier.wake()
        let directoryFeed = DirectoryFeed(bus: self.bus)
        defer { directoryFeed.stop() }
        do {
            while let message = try await messages.next() {
                try await self.handle(message, from: token, outbound: outbound, directoryFeed: directoryFeed)
            }
        } catch {
            await courier.stop()
            throw error
        }
        await courier.stop()
    }

    /// The bearer session from the upgrade's `Authorization` header, else from an `auth` first frame.
    private func authenticate(
        headers: HTTPFields,
        messages: inout WebSocketInboundMessageStream.AsyncIterator,
        outbound: WebSocketOutboundWriter
    ) async throws -> Token? {
        do {
            if let session = SessionMiddleware.bearer(in: headers) {
                return try await self.authenticator.token(forSession: session)
            }
            guard let first = try await self.firstMessage(&messages, outbound: outbound) else { return nil }
            guard case .text(let text) = first, case .auth(let session) = try Self.decodeFrame(text) else {
                throw WotsError(
                    .unauthenticated,
                    "the first frame must be {\"type\": \"auth\", \"session\": …}"
                )
            }
            return try await self.authenticator.token(forSession: session)
        } catch {
            let refusal = Refusal(error)
            try? await Self.send(.error(id: nil, code: refusal.code, message: refusal.message), to: outbound)
            return nil
        }
    }

    /// The first message, or nil when the peer sends none within the authentication timeout (the socket is
    /// closed then).
    private func firstMessage(
        _ messages: inout WebSocketInboundMessageStream.AsyncIterator,
        outbound: WebSocketOutboundWriter
    ) async throws -> WebSocketMessage? {
        let timeout = self.configuration.authenticationTimeout
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            try await outbound.close(.policyViolation, reason: "no auth frame within \(timeout)")
        }
        defer { watchdog.cancel() }
        return try await messages.next()
    }

    private func handle(
        _ message: WebSocketMessage,
        from token: Token,
        outbound: WebSocketOutboundWriter,
        directoryFeed: DirectoryFeed
    ) async throws {
        guard case .text(let text) = message else {
            try await Self.send(
                .error(id: nil, code: .invalidFrame, message: "binary frames are not supported; send JSON text"),
                to: outbound
            )
            return
        }
        let frame: ClientFrame
        do {
            frame = try Self.decodeFrame(text)
        } catch {
            let refusal = Refusal(error)
            try await Self.send(.error(id: nil, code: .invalidFrame, message: refusal.message), to: outbound)
            return
        }
        switch frame {
        case .auth:
            try await Self.send(
                .error(id: nil, code: .alreadyAuthenticated, message: "this stream is already authenticated"),
                to: outbound
            )
        case .ack(let ids):
            let count = try await self.storage.mailboxes.acknowledge(Array(ids.prefix(1_000)), for: token)
            self.metrics.messagesAcknowledged.increment(by: count)
        case .send(let envelope):
            do {
                let receipt = try await self.acceptor.accept(envelope, from: token)
                try await Self.send(
                    .accepted(id: receipt.id, seq: receipt.seq, receivedAt: receipt.receivedAt),
                    to: outbound
                )
            } catch {
                let refusal = Refusal(error)
                self.metrics.countError(code: refusal.code)
                try await Self.send(
                    .error(id: envelope.header.messageID, code: refusal.code, message: refusal.message),
                    to: outbound
                )
            }
        case .subscribeDirectory(let on):
            if on { directoryFeed.start(outbound: outbound) } else { directoryFeed.stop() }
        }
    }

    static func decodeFrame(_ text: String) throws -> ClientFrame {
        try JSONBody.decode(ClientFrame.self, from: Data(text.utf8))
    }

    static func send(_ frame: RelayFrame, to outbound: WebSocketOutboundWriter) async throws {
        let data = try WireCoding.makeEncoder().encode(frame)
        try await outbound.writeTextMessage(String(decoding: data, as: UTF8.self))
    }
}
