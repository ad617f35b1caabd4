public import Foundation

/// `POST /v1/messages` answer (202), also sent again for a retried envelope.
public struct SendReceipt: Sendable, Hashable, Codable {
    public var id: UUID
    /// The recipient mailbox's sequence number.
    public var seq: Int64
    public var receivedAt: Date

    public init(id: UUID, seq: Int64, receivedAt: Date) {
        self.id = id
        self.seq = seq
        self.receivedAt = receivedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, seq, receivedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decodeMessageID(forKey: .id)
        self.seq = try container.decode(Int64.self, forKey: .seq)
        self.receivedAt = try container.decode(Date.self, forKey: .receivedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.seq, forKey: .seq)
        try container.encode(self.receivedAt, forKey: .receivedAt)
    }
}

/// One envelope waiting in the caller's mailbox.
public struct DeliveredMessage: Sendable, Hashable, Codable {
    public var seq: Int64
    public var receivedAt: Date
    public var envelope: Envelope

    public init(seq: Int64, receivedAt: Date, envelope: Envelope) {
        self.seq = seq
        self.receivedAt = receivedAt
        self.envelope = envelope
    }
}

/// `GET /v1/messages` answer.
public struct MailboxResponse: Sendable, Hashable, Codable {
    public var messages: [DeliveredMessage]

    public init(messages: [DeliveredMessage]) { self.messages = messages }
}

/// `POST /v1/messages/ack` body, and the WebSocket `ack` frame's `messages`: which messages the caller has safely.
public struct AcknowledgeRequest: Sendable, Hashable, Codable {
    /// Most messages one acknowledgement may name, on either transport.
    public static let maximumCount = 1_000

    public var messages: [MessageKey]

    public init(messages: [MessageKey]) { self.messages = messages }
}

/// `POST /v1/messages/ack` answer: the named messages that were in the caller's mailbox and are now deleted.
public struct AcknowledgeResponse: Sendable, Hashable, Codable {
    /// How many were deleted: `messages.count`.
    public var acknowledged: Int
    public var messages: [MessageKey]

    public init(messages: [MessageKey]) {
        self.acknowledged = messages.count
        self.messages = messages
    }
}
