public import Foundation

/// Something the relay tells a sender about a message they sent. `GET /v1/notices` lists the caller's.
public struct DeliveryNotice: Sendable, Hashable, Codable {
    /// What happened to the message.
    public struct Kind: Sendable, Hashable, Codable, CustomStringConvertible {
        public let name: String

        public init(name: String) { self.name = name }

        /// The message waited longer than the relay's retention period and was deleted, undelivered.
        public static let expired = Kind(name: "expired")

        public var description: String { self.name }

        public init(from decoder: any Decoder) throws {
            self.name = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(self.name)
        }
    }

    public var kind: Kind
    /// The id the sender gave the message.
    public var id: UUID
    /// The recipient the message was for.
    public var to: Token
    /// When the relay stored the message.
    public var receivedAt: Date
    /// When the relay deleted it.
    public var expiredAt: Date

    public init(kind: Kind, id: UUID, to: Token, receivedAt: Date, expiredAt: Date) {
        self.kind = kind
        self.id = id
        self.to = to
        self.receivedAt = receivedAt
        self.expiredAt = expiredAt
    }

    private enum CodingKeys: String, CodingKey {
        case kind, id, to, receivedAt, expiredAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.kind = try container.decode(Kind.self, forKey: .kind)
        self.id = try container.decodeMessageID(forKey: .id)
        self.to = try container.decode(Token.self, forKey: .to)
        self.receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        self.expiredAt = try container.decode(Date.self, forKey: .expiredAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.kind, forKey: .kind)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.to, forKey: .to)
        try container.encode(self.receivedAt, forKey: .receivedAt)
        try container.encode(self.expiredAt, forKey: .expiredAt)
    }
}

/// `GET /v1/notices` answer: the caller's notices, oldest first.
public struct NoticesResponse: Sendable, Hashable, Codable {
    public var notices: [DeliveryNotice]

    public init(notices: [DeliveryNotice]) { self.notices = notices }
}

/// `POST /v1/notices/ack` body: the message ids whose notices the caller has seen.
public struct ClearNoticesRequest: Sendable, Hashable, Codable {
    /// Most ids one request may name.
    public static let maximumCount = 1_000

    public var notices: [UUID]

    public init(notices: [UUID]) { self.notices = notices }

    private enum CodingKeys: String, CodingKey {
        case notices
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .notices)
        var ids: [UUID] = []
        while !list.isAtEnd {
            let text = try list.decode(String.self)
            guard let id = UUID(uuidString: text) else {
                throw WotsError(.invalidMessageID, "notice id \"\(text.prefix(40))\" is not a UUID")
            }
            ids.append(id)
        }
        self.notices = ids
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.notices.map(\.lowercasedString), forKey: .notices)
    }
}

/// `POST /v1/notices/ack` answer: the named notices that were the caller's and are now deleted.
public struct ClearNoticesResponse: Sendable, Hashable, Codable {
    /// How many were deleted: `notices.count`.
    public var cleared: Int
    public var notices: [UUID]

    public init(notices: [UUID]) {
        self.cleared = notices.count
        self.notices = notices
    }

    private enum CodingKeys: String, CodingKey {
        case cleared, notices
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.cleared = try container.decode(Int.self, forKey: .cleared)
        self.notices = try ClearNoticesRequest(from: decoder).notices
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.cleared, forKey: .cleared)
        try container.encode(self.notices.map(\.lowercasedString), forKey: .notices)
    }
}
