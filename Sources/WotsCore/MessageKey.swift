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
    public var lowercasedString: String {
        withUnsafeBytes(of: self.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var written = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    text[written] = Hex.digits[Int(byte >> 4)]
                    text[written + 1] = Hex.digits[Int(byte & 0x0F)]
                    written += 2
                }
                return written
            }
        }
    }

    /// Reads the 36-character text form (`8-4-4-4-12` hex digits, either case) and nothing else; the relay's scanners
    /// use it in place of `UUID(uuidString:)`, which parses with `sscanf`.
    package init?(text: some StringProtocol) {
        self.init(textUTF8: text.utf8)
    }

    /// `init(text:)` from the text's UTF-8 bytes.
    package init?(textUTF8: some Sequence<UInt8>) {
        var utf8 = textUTF8.makeIterator()
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let isUUID = withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard utf8.next() == UInt8(ascii: "-") else { return false }
                }
                guard let high = utf8.next().flatMap(Hex.value), let low = utf8.next().flatMap(Hex.value) else {
                    return false
                }
                bytes[index] = high << 4 | low
            }
            return utf8.next() == nil
        }
        guard isUUID else { return nil }
        self.init(uuid: uuid)
    }
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
