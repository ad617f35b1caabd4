public import Foundation

/// What identifies a message everywhere: its sender and the id the sender gave it.
///
/// Two senders may pick the same id; relay deduplication, acknowledgements, client seen-sets and outboxes all use
/// the pair, never the id alone. JSON: `{"sender": TOKEN, "id": UUID}` with the UUID in lowercase.
public struct MessageKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sender: Token
    public var id: UUID

    public init(sender: Token, id: UUID) {
        self.sender = sender
        self.id = id
    }

    /// `sender/id`, for messages and logs.
    public var description: String { "\(self.sender)/\(self.id.lowercasedString)" }

    private enum CodingKeys: String, CodingKey {
        case sender, id
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.sender = try container.decode(Token.self, forKey: .sender)
        self.id = try container.decodeMessageID(forKey: .id)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.sender, forKey: .sender)
        try container.encode(self.id.lowercasedString, forKey: .id)
    }
}

extension EnvelopeHeader {
    /// The message's identity: (sender, id).
    public var messageKey: MessageKey { MessageKey(sender: self.sender, id: self.messageID) }
}

extension UUID {
    /// The text form in lowercase, as Wots writes every UUID (RFC 4122 §3); either case is accepted on input.
    public var lowercasedString: String { self.uuidString.lowercased() }
}

extension KeyedDecodingContainer {
    /// Decodes a message id (a UUID in either case), refusing anything else with `invalid_message_id`.
    package func decodeMessageID(forKey key: Key) throws -> UUID {
        let text = try self.decode(String.self, forKey: key)
        guard let id = UUID(uuidString: text) else {
            throw WotsError(.invalidMessageID, "\(key.stringValue) \"\(text.prefix(40))\" is not a UUID")
        }
        return id
    }
}
