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

/// `POST /v1/messages/ack` body.
public struct AcknowledgeRequest: Sendable, Hashable, Codable {
    public var ids: [UUID]

    public init(ids: [UUID]) { self.ids = ids }
}

/// `POST /v1/messages/ack` answer: how many of the ids were in the caller's mailbox and are now deleted.
public struct AcknowledgeResponse: Sendable, Hashable, Codable {
    public var acknowledged: Int

    public init(acknowledged: Int) { self.acknowledged = acknowledged }
}
