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
        guard let writer = self.writer.withLock({ $0 }) else { return false }
        let ref = "ephemeral-\(self.counter.add(1, ordering: .relaxed).newValue)"
        let frame = EphemeralSendFrame(envelope: envelope, ref: ref)
        let text = String(decoding: try WireCoding.makeEncoder().encode(frame), as: UTF8.self)
        try await writer.write(.text(text))
        return true
    }
}

/// `{"type":"send","envelope":…,"ephemeral":true,"ref":…}`: a send the relay forwards to open sockets only.
struct EphemeralSendFrame: Encodable {
    var envelope: Envelope
    var ref: String

    private enum CodingKeys: String, CodingKey { case type, envelope, ephemeral, ref }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("send", forKey: .type)
        try container.encode(self.envelope, forKey: .envelope)
        try container.encode(true, forKey: .ephemeral)
        try container.encode(self.ref, forKey: .ref)
    }
}

/// Only the `ephemeral` key of a relay frame, read first so ordinary frames are not decoded twice.
struct EphemeralFlag: Decodable {
    var ephemeral: Bool?
}

/// The relay's frames about ephemeral sends: `message` (no `seq`, never acknowledged) and `accepted` (no `seq`).
struct EphemeralRelayFrame: Decodable {
    var type: String
    var ephemeral: Bool?
    var receivedAt: Date?
    var envelope: Envelope?

    /// The ephemeral message this frame carries, if it is one.
    var message: DeliveredMessage? {
        guard self.ephemeral == true, self.type == "message", let envelope = self.envelope else { return nil }
        return DeliveredMessage(seq: 0, receivedAt: self.receivedAt ?? Date(), envelope: envelope)
    }
}
