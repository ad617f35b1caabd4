public import Foundation

/// `POST /v1/group-messages` body: the group envelope's body, stored once, and one slot per recipient.
public struct GroupSendRequest: Sendable, Hashable, Codable {
    public var body: GroupEnvelope
    /// One per header recipient, in header order.
    public var slots: [GroupSlot]

    public init(body: GroupEnvelope, slots: [GroupSlot]) {
        self.body = body
        self.slots = slots
    }

    private enum CodingKeys: String, CodingKey {
        case body, slots
    }

    private struct SlotWire: Codable {
        var recipient: Token
        var wrappedKey: String
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.body = try GroupEnvelope(serialized: try container.decodeBase64(forKey: .body))
        self.slots = try container.decode([SlotWire].self, forKey: .slots).map { wire in
            guard let key = Data(base64Encoded: wire.wrappedKey) else {
                throw WotsError(.malformedEnvelope, "the wrapped key for \(wire.recipient) is not standard base64")
            }
            return GroupSlot(recipient: wire.recipient, wrappedKey: Array(key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64(self.body.serialized, forKey: .body)
        try container.encode(
            self.slots.map { SlotWire(recipient: $0.recipient, wrappedKey: $0.wrappedKey.base64) },
            forKey: .slots
        )
    }
}

/// `POST /v1/group-messages` answer (202), also sent again for a retried message.
public struct GroupSendReceipt: Sendable, Hashable, Codable {
    public var id: UUID
    /// How many mailboxes hold a slot.
    public var recipients: Int
    public var receivedAt: Date

    public init(id: UUID, recipients: Int, receivedAt: Date) {
        self.id = id
        self.recipients = recipients
        self.receivedAt = receivedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, recipients, receivedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decodeMessageID(forKey: .id)
        self.recipients = try container.decode(Int.self, forKey: .recipients)
        self.receivedAt = try container.decode(Date.self, forKey: .receivedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.recipients, forKey: .recipients)
        try container.encode(self.receivedAt, forKey: .receivedAt)
    }
}

/// One group message waiting for the caller: its place in the caller's mailbox, the body and the caller's slot.
public struct DeliveredGroupMessage: Sendable, Hashable, Codable {
    public var seq: Int64
    public var receivedAt: Date
    public var body: GroupEnvelope
    public var slot: [UInt8]

    public init(seq: Int64, receivedAt: Date, body: GroupEnvelope, slot: [UInt8]) {
        self.seq = seq
        self.receivedAt = receivedAt
        self.body = body
        self.slot = slot
    }

    private enum CodingKeys: String, CodingKey {
        case seq, receivedAt, body, slot
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.seq = try container.decode(Int64.self, forKey: .seq)
        self.receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        self.body = try GroupEnvelope(serialized: try container.decodeBase64(forKey: .body))
        self.slot = try container.decodeBase64(forKey: .slot)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.seq, forKey: .seq)
        try container.encode(self.receivedAt, forKey: .receivedAt)
        try container.encodeBase64(self.body.serialized, forKey: .body)
        try container.encodeBase64(self.slot, forKey: .slot)
    }
}

/// `GET /v1/group-messages` answer.
public struct GroupMailboxResponse: Sendable, Hashable, Codable {
    public var messages: [DeliveredGroupMessage]

    public init(messages: [DeliveredGroupMessage]) { self.messages = messages }
}
