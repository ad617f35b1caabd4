public import Foundation
public import WotsCore

/// Something that happened in a group, as `wots inbox` shows it: a message, a membership change, a refused update
/// or message, or this account's removal.
///
/// JSON (`wots inbox --json`): `{"kind", "group", "groupName", "id", "from", "fromToken", "sentAt", "expiresAt",
/// "type", "text", "line", "warnings", "attachment", "savedTo"}`; `text` only for a message (an attachment's caption),
/// `line` the one readable sentence for the other kinds; `type` the content's type (`text`, `attachment`,
/// `settings`, `group_update`, …) when the message could be read; `expiresAt` null for never; `attachment`
/// `{"name", "size", "mediaType"}` and `savedTo` (the saved file) only for an attachment.
public struct GroupEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A message shown to the user (`text`, with `warnings`).
        case message = "group_message"
        /// A membership change applied (`line`).
        case membership = "group_change"
        /// An update or message refused, never applied or shown (`line` says why).
        case refused = "group_refused"
    }

    public var kind: Kind
    public var group: GroupID
    /// The group's name in the state this account holds.
    public var groupName: String
    public var id: UUID
    public var from: Nickname?
    public var fromToken: Token
    public var sentAt: Date
    /// A message's text; never stored outside the encrypted history (read back from it when shown).
    public var text: String?
    public var line: String?
    public var warnings: [String] = []
    /// The content's `type`, when the message could be read.
    public var type: String?
    /// When the message disappears (its header's `expiresAt`); nil for never.
    public var expiresAt: Date?
    /// What the sender said about an attached file (never its key).
    public var attachment: AttachmentSummary?
    /// Where the attachment was saved, once it was.
    public var savedTo: String?

    /// An attachment as `--json` shows it.
    public struct AttachmentSummary: Sendable, Hashable, Codable {
        public var name: String
        public var size: UInt64
        public var mediaType: String

        init(_ reference: AttachmentReference) {
            self.name = reference.name
            self.size = reference.size
            self.mediaType = reference.mediaType
        }
    }

    /// Whether its sender's client is told it was delivered and read: a text or a file a person reads.
    public var wantsReceipts: Bool { self.kind == .message && (self.type == "text" || self.type == "attachment") }

    /// The message's identity: (sender, id).
    public var key: MessageKey { MessageKey(sender: self.fromToken, id: self.id) }

    /// The sender as people read it: the nickname, else the token.
    public var senderName: String { self.from?.value ?? "token \(self.fromToken)" }

    private enum CodingKeys: String, CodingKey {
        case kind, group, groupName, id, from, fromToken, sentAt, text, line, warnings
        case type, expiresAt, attachment, savedTo
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.kind, forKey: .kind)
        try container.encode(self.group, forKey: .group)
        try container.encode(self.groupName, forKey: .groupName)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.from, forKey: .from)
        try container.encode(self.fromToken, forKey: .fromToken)
        try container.encode(self.sentAt, forKey: .sentAt)
        try container.encode(self.text, forKey: .text)
        try container.encode(self.line, forKey: .line)
        try container.encode(self.warnings, forKey: .warnings)
        try container.encode(self.type, forKey: .type)
        try container.encode(self.expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(self.attachment, forKey: .attachment)
        try container.encodeIfPresent(self.savedTo, forKey: .savedTo)
    }
}
