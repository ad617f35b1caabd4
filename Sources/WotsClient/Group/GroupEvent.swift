public import Foundation
public import WotsCore

/// Something that happened in a group, as `wots inbox` shows it: a message, a membership change, a refused update
/// or message, or this account's removal.
///
/// JSON (`wots inbox --json`): `{"kind", "group", "groupName", "id", "from", "fromToken", "sentAt", "text", "line",
/// "warnings"}`; `text` only for a message, `line` the one readable sentence for the other kinds.
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

    /// The message's identity: (sender, id).
    public var key: MessageKey { MessageKey(sender: self.fromToken, id: self.id) }

    /// The sender as people read it: the nickname, else the token.
    public var senderName: String { self.from?.value ?? "token \(self.fromToken)" }

    private enum CodingKeys: String, CodingKey {
        case kind, group, groupName, id, from, fromToken, sentAt, text, line, warnings
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
    }
}
