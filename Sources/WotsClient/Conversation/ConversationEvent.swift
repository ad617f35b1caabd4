import Foundation
public import WotsCore

/// What happened in a conversation, for a command to show. Receipts and typing are never shown as messages.
public enum ConversationEvent: Sendable {
    /// A message a person reads (text, attachment, or a type this client does not know): shown, kept in history.
    case message(ReceivedMessage)
    /// The peer's client confirmed messages this account sent: they are now `status` (delivered or read).
    case status([MessageKey], HistoryEntry.Status, peer: Token)
    /// The peer started or stopped typing (ephemeral: never stored anywhere).
    case typing(peer: Token, MessageContent.TypingState)
    /// Someone set the conversation's disappearing timer (seconds, 0 = off).
    case timer(seconds: UInt32, peer: Token, setBy: Token)
    /// The peer's profile arrived: its avatar preset, or its image saved to a file.
    case profile(peer: Token, PeerAvatar)
    /// Disappearing messages reached their time and were deleted from every local store.
    case expired(count: Int)
}
