public import Foundation
public import WotsCore

/// One message of a conversation as this machine keeps it: who, when, how far it got, and its content.
///
/// Everything but `content` is stored in the clear (it is what the relay saw anyway: who, when, which id); the
/// content is encrypted under the history key (`HistoryKey`).
public struct HistoryEntry: Sendable, Hashable {
    /// How far a message got: `sent` (the relay accepted it), `delivered` (the recipient's client stored it),
    /// `read` (a person saw it); a message this account received is `received`.
    public enum Status: String, Sendable, Hashable, Codable, Comparable {
        case sent, delivered, read, received

        var rank: Int {
            switch self {
            case .received: 0
            case .sent: 1
            case .delivered: 2
            case .read: 3
            }
        }

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
    }

    /// The other person in the conversation.
    public var peer: Token
    public var sender: Token
    public var id: UUID
    /// The sender's clock.
    public var sentAt: Date
    /// When the message disappears from every store (its header's `expiresAt`); nil for never.
    public var expiresAt: Date?
    public var status: Status
    /// The message's content as it was sent (the typed content's JSON). Secret.
    public var content: [UInt8]

    public init(
        peer: Token,
        sender: Token,
        id: UUID,
        sentAt: Date,
        expiresAt: Date?,
        status: Status,
        content: [UInt8]
    ) {
        self.peer = peer
        self.sender = sender
        self.id = id
        self.sentAt = sentAt
        self.expiresAt = expiresAt
        self.status = status
        self.content = content
    }

    public var key: MessageKey { MessageKey(sender: self.sender, id: self.id) }

    /// Whether this account sent it.
    public var isOutgoing: Bool { self.sender != self.peer }

    /// The associated data that binds a row's ciphertext to its place: conversation, sender, id.
    var sealingContext: [UInt8] {
        let uuid = self.id.uuid
        let idBytes: [UInt8] = withUnsafeBytes(of: uuid) { Array($0) }
        return self.peer.bytes + self.sender.bytes + idBytes
    }
}
