public import Foundation
public import WotsCore

/// One message of `wots history`, as people and scripts read it.
///
/// JSON: `{"id", "from", "fromToken", "direction": "sent"|"received", "sentAt", "expiresAt" (null for never),
/// "status": "sent"|"delivered"|"read"|"received", "type", "text" (null unless a text), "attachment": {"name",
/// "mediaType", "size", "caption"} or null}`; in a group's history a message this account sent also has "receipts":
/// `{"members", "delivered", "read", "statuses": [{"token", "nickname", "status"}]}`, how far it got with each member
/// it went to (`status` the least of them).
public struct HistoryItem: Sendable, Hashable, Encodable {
    /// An attachment's reference as the history shows it (the file key stays in the store).
    public struct Attachment: Sendable, Hashable, Codable {
        public var name: String
        public var mediaType: String
        public var size: Int
        public var caption: String?
    }

    public var id: UUID
    /// The sender's nickname, when known.
    public var from: Nickname?
    public var fromToken: Token
    public var isOutgoing: Bool
    public var sentAt: Date
    public var expiresAt: Date?
    public var status: HistoryEntry.Status
    /// The content's `type` (`text`, `attachment`, or one this client does not know).
    public var type: String
    public var text: String?
    public var attachment: Attachment?
    /// A group message this account sent: how far it got with each member.
    public var receipts: GroupReceipts?

    /// How far a group message this account sent got with the members it went to.
    public struct GroupReceipts: Sendable, Hashable, Encodable {
        public struct MemberStatus: Sendable, Hashable, Encodable {
            public var token: Token
            public var nickname: Nickname?
            public var status: HistoryEntry.Status

            private enum CodingKeys: String, CodingKey {
                case token, nickname, status
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(self.token, forKey: .token)
                try container.encode(self.nickname, forKey: .nickname)
                try container.encode(self.status, forKey: .status)
            }
        }

        public var members: Int
        /// Members whose client stored it (`delivered` or `read`).
        public var delivered: Int
        /// Members who saw it.
        public var read: Int
        public var statuses: [MemberStatus]

        public init(members: Int, delivered: Int, read: Int, statuses: [MemberStatus] = []) {
            self.members = members
            self.delivered = delivered
            self.read = read
            self.statuses = statuses
        }

        init(_ statuses: [Token: HistoryEntry.Status], names: (Token) -> Nickname?) {
            self.statuses = statuses.sorted { $0.key < $1.key }.map {
                MemberStatus(token: $0.key, nickname: names($0.key), status: $0.value)
            }
            self.members = statuses.count
            self.delivered = statuses.values.filter { $0 >= .delivered }.count
            self.read = statuses.values.filter { $0 == .read }.count
        }
    }

    /// Builds the item from a stored entry, reading the content's JSON as the spec spells it.
    init(_ entry: HistoryEntry, from nickname: Nickname?) {
        let content = try? JSONDecoder().decode(StoredContent.self, from: Data(entry.content))
        self.id = entry.id
        self.from = nickname
        self.fromToken = entry.sender
        self.isOutgoing = entry.isOutgoing
        self.sentAt = entry.sentAt
        self.expiresAt = entry.expiresAt
        self.status = entry.status
        self.type = content?.type ?? "unreadable"
        self.text = content?.type == "text" ? content?.text : nil
        if content?.type == "attachment", let name = content?.name, let size = content?.size {
            self.attachment = Attachment(
                name: name,
                mediaType: content?.mediaType ?? "application/octet-stream",
                size: size,
                caption: content?.caption
            )
        }
    }

    /// Whether the text, the attachment's name or its caption contains `search`, ignoring case and diacritics.
    public func matches(_ search: String) -> Bool {
        [self.text, self.attachment?.name, self.attachment?.caption].compactMap { $0 }.contains {
            $0.range(of: search, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, from, fromToken, direction, sentAt, expiresAt, status, type, text, attachment, receipts
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.from, forKey: .from)
        try container.encode(self.fromToken, forKey: .fromToken)
        try container.encode(self.isOutgoing ? "sent" : "received", forKey: .direction)
        try container.encode(self.sentAt, forKey: .sentAt)
        try container.encode(self.expiresAt, forKey: .expiresAt)
        try container.encode(self.status, forKey: .status)
        try container.encode(self.type, forKey: .type)
        try container.encode(self.text, forKey: .text)
        try container.encode(self.attachment, forKey: .attachment)
        try container.encodeIfPresent(self.receipts, forKey: .receipts)
    }
}

/// The fields of a stored content object the history shows (the content JSON of the v2 design, section 2).
private struct StoredContent: Decodable {
    var type: String
    var text: String?
    var name: String?
    var mediaType: String?
    var size: Int?
    var caption: String?
}
