import Foundation
import HummingbirdWSClient
public import Logging
import NIOSSL
import Synchronization
public import WotsCore

#if canImport(Glibc)
    import Glibc
#endif

/// The relay's live stream (`GET /v1/stream`): authenticates in the first frame, then receives queued and live
/// messages and acknowledges them, with one `ack` frame unanswered at a time (`AcknowledgementQueue`); reconnects
/// with exponential back-off when the connection drops.
public struct StreamClient: Sendable {
    /// What happened to the connection, for status lines.
    public enum Status: Sendable, Hashable {
        /// Authenticated; messages follow.
        case connected
        /// The connection failed or closed; the next attempt starts after `retryIn`.
        case disconnected(reason: String, retryIn: Duration)
    }

    /// Largest frame accepted from the relay. Default 1 MiB (an envelope is at most 64 KiB, base64 in JSON).
    public var maximumFrameSize = 1 << 20
    /// First reconnect delay, doubled after each failure up to `maximumBackoff`; each pause is a random 50–100 % of
    /// it. Default 0.5 s.
    public var initialBackoff: Duration = .milliseconds(500)
    /// Longest reconnect delay. Default 30 s.
    public var maximumBackoff: Duration = .seconds(30)
    /// Pause before an acknowledgement the relay refused (its database was unavailable) is sent again.
    static let acknowledgementRetryPause: Duration = .seconds(1)

    let relay: RelayClient
    let logger: Logger

    public init(relay: RelayClient, logger: Logger) {
        self.relay = relay
        self.logger = logger
    }

    /// The `ws://` or `wss://` URL of the relay's stream.
    public var url: String {
        var base = self.relay.baseURL
        if base.lowercased().hasPrefix("https://") {
            base = "wss://" + base.dropFirst("https://".count)
        } else if base.lowercased().hasPrefix("http://") {
            base = "ws://" + base.dropFirst("http://".count)
        }
        return base + "/v1/stream"
    }

    /// Connects and delivers messages until the task is cancelled.
    /// - Parameters:
    ///   - status: told about connects and disconnects.
    ///   - link: set to the live socket while connected, so frames can be sent on it. Default none.
    ///   - ephemeral: called for each ephemeral message (typing): never stored by the relay, never acknowledged.
    ///   - handle: called for each delivered message; return true to acknowledge it (at once, or in the next `ack`
    ///     frame while one is unanswered).
    ///   - handleGroup: when given, the stream is opened with `?groups=true` and this is called for each group slot
    ///     (`group_message` frame), in mailbox order with the messages; return true to acknowledge it.
    ///   - ephemeralGroup: called for each ephemeral group slot (group typing) on a stream opened with
    ///     `?groups=true`: never stored, never acknowledged; its `seq` is 0.
    /// - Throws: `invalid_session` or `account_suspended` when the relay refuses the account (reconnecting would not
    ///   help),
    ///   `CancellationError` when cancelled.
    public func run(
        status: @escaping @Sendable (Status) -> Void,
        link: StreamLink? = nil,
        ephemeral: @escaping @Sendable (DeliveredMessage) async -> Void = { _ in },
        handleGroup: (@Sendable (DeliveredGroupMessage) async throws -> Bool)? = nil,
        ephemeralGroup: @escaping @Sendable (DeliveredGroupMessage) async -> Void = { _ in },
        handle: @escaping @Sendable (DeliveredMessage) async throws -> Bool
    ) async throws {
        try self.checkStreamHost()
        var backoff = self.initialBackoff
        while true {
            try Task.checkCancellation()
            let connected = Flag()
            let reason: String
            do {
                defer { link?.detach() }
                try await self.connectOnce(
                    connected: connected,
                    status: status,
                    link: link,
                    ephemeral: ephemeral,
                    handleGroup: handleGroup,
                    ephemeralGroup: ephemeralGroup,
                    handle: handle
                )
                reason = "the relay closed the stream"
            } catch let error as WotsError where [.invalidSession, .accountSuspended].contains(error.code) {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as WotsError {
                reason = error.reason
            } catch {
                reason = RelayClient.describe(error)
            }
            try Task.checkCancellation()
            if connected.isSet { backoff = self.initialBackoff }
            let pause = Self.jittered(backoff)
            status(.disconnected(reason: reason, retryIn: pause))
            try await Task.sleep(for: pause)
            backoff = min(backoff * 2, self.maximumBackoff)
        }
    }

    /// A pause between half of `backoff` and all of it, so clients that lost the same relay at the same moment do not
    /// all come back at the same moment.
    static func jittered(_ backoff: Duration) -> Duration {
        backoff * Double.random(in: 0.5...1.0)
    }

    /// The WebSocket client (swift-websocket) always sends the URL's host as TLS server name, which an IP address
    /// cannot be; it would fail on every attempt, so the stream refuses such a URL at once, naming the fix.
    /// - Throws: `invalid_input` for a `wss://` URL whose host is an IP address.
    func checkStreamHost() throws {
        guard self.url.lowercased().hasPrefix("wss://"), let host = URLComponents(string: self.url)?.host,
            AddressText.isIPAddress(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        else { return }
        throw WotsError(
            .invalidInput,
            "the live stream of an https:// relay needs its host name, not the IP address \(host): use --relay "
                + "https://NAME:PORT with a name the relay's certificate lists (as localhost for 127.0.0.1)"
        )
    }

    private func connectOnce(
        connected: Flag,
        status: @escaping @Sendable (Status) -> Void,
        link: StreamLink?,
        ephemeral: @escaping @Sendable (DeliveredMessage) async -> Void,
        handleGroup: (@Sendable (DeliveredGroupMessage) async throws -> Bool)?,
        ephemeralGroup: @escaping @Sendable (DeliveredGroupMessage) async -> Void,
        handle: @escaping @Sendable (DeliveredMessage) async throws -> Bool
    ) async throws {
        let session = try await self.relay.currentSession()
        let relay = self.relay
        let maximumFrameSize = self.maximumFrameSize
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: maximumFrameSize,
            autoPing: .enabled(timePeriod: .seconds(30))
        )
        try await WebSocketClient.connect(
            url: handleGroup == nil ? self.url : self.url + "?groups=true",
            configuration: configuration,
            tlsConfiguration: relay.trust.tlsConfiguration,
            logger: self.logger
        ) {
            inbound,
            outbound,
            _ in
            let encoder = WireCoding.makeEncoder()
            let decoder = WireCoding.makeDecoder()
            func text(_ frame: ClientFrame) throws -> String {
                String(decoding: try encoder.encode(frame), as: UTF8.self)
            }
            func send(_ frame: ClientFrame) async throws { try await outbound.write(.text(try text(frame))) }
            try await send(ClientFrame(.auth(session: session), ref: "auth"))
            var acknowledgements = AcknowledgementQueue()
            func send(_ acknowledgement: AcknowledgementQueue.Frame?) async throws {
                guard let acknowledgement else { return }
                do {
                    try await send(ClientFrame(.ack(acknowledgement.keys), ref: acknowledgement.ref))
                } catch {
                    // Not written (the stream is ending): its keys wait for the last frames.
                    acknowledgements.refused(acknowledgement.ref)
                    throw error
                }
            }
            func acknowledge(_ key: MessageKey) async throws { try await send(acknowledgements.add(key)) }
            func sendRemaining() async {
                let frames = acknowledgements.remainingFrames().compactMap { frame in
                    try? text(ClientFrame(.ack(frame.keys), ref: frame.ref))
                }
                await Self.sendLast(frames, on: outbound)
            }
            func receive() async throws {
                for try await message in inbound.messages(maxSize: maximumFrameSize) {
                    guard case .text(let text) = message else { continue }
                    let frame: RelayFrame
                    do {
                        frame = try decoder.decode(RelayFrame.self, from: Data(text.utf8))
                    } catch {
                        throw WotsError(.invalidResponse, "the relay sent a stream frame that is not the API: \(error)")
                    }
                    switch frame {
                    case .ready:
                        connected.set()
                        link?.attach(outbound)
                        status(.connected)
                    case .message(let delivered):
                        if try await handle(delivered) { try await acknowledge(delivered.envelope.header.messageKey) }
                    case .acked(let ref?, _):
                        try await send(acknowledgements.answered(ref))
                    case .error(let ref?, _, let code, let text) where acknowledgements.isUnanswered(ref):
                        // Nothing was deleted (schema/stream.md, rule 4): acknowledge again after a pause, with what was
                        // handled meanwhile.
                        acknowledgements.refused(ref)
                        self.logger.notice(
                            "an acknowledgement was refused; sending it again",
                            metadata: ["code": "\(code)", "reason": "\(RelayClient.printable(text))"]
                        )
                        try await Task.sleep(for: Self.acknowledgementRetryPause)
                        try await send(acknowledgements.takeNext())
                    case .error(_, _, let code, let text):
                        if code == .accountSuspended {
                            throw WotsError(
                                .accountSuspended,
                                "the relay closed the stream: \(RelayClient.printable(text))"
                            )
                        }
                        if code == .unauthenticated || code == .invalidSession {
                            await relay.invalidateSession()
                            if !connected.isSet {
                                throw WotsError(
                                    .streamFailed,
                                    "the relay refused the stream session: \(RelayClient.printable(text))"
                                )
                            }
                        }
                        throw WotsError(.streamFailed, "the relay reported \(code): \(RelayClient.printable(text))")
                    case .groupMessage(let delivered):
                        if let handleGroup, try await handleGroup(delivered) {
                            try await acknowledge(delivered.body.header.messageKey)
                        }
                    case .ephemeralMessage(let receivedAt, let envelope):
                        await ephemeral(DeliveredMessage(seq: 0, receivedAt: receivedAt, envelope: envelope))
                    case .ephemeralGroupMessage(let receivedAt, let body, let slot):
                        await ephemeralGroup(
                            DeliveredGroupMessage(seq: 0, receivedAt: receivedAt, body: body, slot: slot)
                        )
                    case .accepted, .acked, .subscribed, .directory, .ephemeralAccepted:
                        continue
                    }
                }
            }
            do {
                try await receive()
            } catch {
                await sendRemaining()
                throw error
            }
            await sendRemaining()
        }
    }

    /// Writes the last `ack` frames of a stream that is ending, from a task of its own: stopping a listener cancels
    /// the stream's task, and a cancelled task's writes fail. Gives up after a second (a socket that takes nothing).
    private static func sendLast(_ frames: [String], on outbound: WebSocketOutboundWriter) async {
        guard !frames.isEmpty else { return }
        await Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for frame in frames { try? await outbound.write(.text(frame)) }
                }
                group.addTask { try? await Task.sleep(for: .seconds(1)) }
                await group.next()
                group.cancelAll()
            }
        }.value
    }
}

/// A flag set from inside the WebSocket handler and read after it returns.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { self.value.load(ordering: .relaxed) }

    func set() { self.value.store(true, ordering: .relaxed) }
}

/// Whether text is an IPv4 or IPv6 address literal.
enum AddressText {
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
