import Foundation
import HummingbirdWSClient
import Synchronization
public import WotsCore

/// The way out of a running `StreamClient` connection: frames sent on the live socket (typing indicators), dropped
/// while the stream is disconnected, since they only matter now.
public final class StreamLink: Sendable {
    private let writer = Mutex<WebSocketOutboundWriter?>(nil)
    private let counter = Atomic<Int>(0)

    public init() {}

    /// Whether the stream is connected now.
    public var isConnected: Bool { self.writer.withLock { $0 != nil } }

    func attach(_ writer: WebSocketOutboundWriter) { self.writer.withLock { $0 = writer } }

    func detach() { self.writer.withLock { $0 = nil } }

    /// Sends `envelope` as an ephemeral frame (never stored by the relay; forwarded to the recipient's open sockets).
    /// - Returns: false when the stream is not connected (nothing was sent).
    @discardableResult
    public func sendEphemeral(_ envelope: Envelope) async throws -> Bool {
        try await self.send(.sendEphemeral(envelope))
    }

    /// Sends a group envelope's body and slots as an ephemeral `send_group` frame (never stored by the relay; each
    /// member's slot forwarded to the sockets it has open with `?groups=true`).
    /// - Returns: false when the stream is not connected (nothing was sent).
    @discardableResult
    public func sendEphemeral(_ request: GroupSendRequest) async throws -> Bool {
        try await self.send(.sendGroupEphemeral(request))
    }

    private func send(_ body: ClientFrame.Body) async throws -> Bool {
        guard let writer = self.writer.withLock({ $0 }) else { return false }
        let ref = "ephemeral-\(self.counter.add(1, ordering: .relaxed).newValue)"
        let frame = ClientFrame(body, ref: ref)
        let text = String(decoding: try WireCoding.makeEncoder().encode(frame), as: UTF8.self)
        try await writer.write(.text(text))
        return true
    }
}
