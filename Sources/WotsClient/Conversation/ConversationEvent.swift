import Foundation
public import WotsCore

/// What happened in a conversation, for a command to show. Receipts and typing are never shown as messages.
public enum ConversationEvent: Sendable {
    /// A message a person reads (text, attachment, or a type this client does not know): shown, kept in history.
    case message(ReceivedMessage)
    /// The peer's client confirmed messages this account sent: they are now `status` (delivered or read).
    case status([MessageKey], HistoryEntry.Status, peer: Token)
    /// A member's client confirmed group messages this account sent: `member` is now `status` with them; each
    /// delivery says how far the message got with all its members.
    case groupStatus([GroupDelivery], HistoryEntry.Status, member: Token)
    /// The peer started or stopped typing (ephemeral: never stored anywhere).
    case typing(peer: Token, MessageContent.TypingState)
    /// Someone set the conversation's disappearing timer (seconds, 0 = off).
    case timer(seconds: UInt32, peer: Token, setBy: Token)
    /// The peer's profile arrived: its avatar preset, or its image saved to a file.
    case profile(peer: Token, PeerAvatar)
    /// Disappearing messages reached their time and were deleted from every local store.
    case expired(count: Int)
}

/// How far one group message this account sent got with the members it went to.
///
/// JSON (inside `wots history --group NAME --json`, as `receipts`): `{"members", "delivered", "read"}`.
public struct GroupDelivery: Sendable, Hashable, Encodable {
    public var key: MessageKey
    public var group: GroupID
    /// How many members it went to.
    public var members: Int
    /// How many confirmed it was stored (`delivered` or `read`).
    public var delivered: Int
    /// How many confirmed a person saw it.
    public var read: Int

    public init(key: MessageKey, group: GroupID, statuses: [Token: HistoryEntry.Status]) {
        self.key = key
        self.group = group
        self.members = statuses.count
        self.delivered = statuses.values.filter { $0 >= .delivered }.count
        self.read = statuses.values.filter { $0 == .read }.count
    }

    /// Whether every member confirmed it was stored.
    public var isComplete: Bool { self.delivered == self.members }

    private enum CodingKeys: String, CodingKey {
        case members, delivered, read
    }
}
