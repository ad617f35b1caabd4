public import Foundation
public import WotsCore

/// What a sender is told when a message of theirs expired in its recipient's mailbox, undelivered.
///
/// The relay keeps one per expired (sender, message id) until the sender clears it or it is itself older than the
/// retention period.
public struct ExpiryNotice: Sendable, Hashable {
    /// The sender who is told; the notice is theirs alone.
    public var sender: Token
    /// The id the sender gave the message.
    public var messageID: UUID
    public var recipient: Token
    /// When the relay stored the message.
    public var receivedAt: Date
    /// When the relay deleted it, undelivered.
    public var expiredAt: Date

    public init(sender: Token, messageID: UUID, recipient: Token, receivedAt: Date, expiredAt: Date) {
        self.sender = sender
        self.messageID = messageID
        self.recipient = recipient
        self.receivedAt = receivedAt
        self.expiredAt = expiredAt
    }
}

extension WotsError {
    /// The refusal of an append that would take a mailbox past its byte quota, the same from every backend.
    package static func quotaExceeded(recipient: Token, envelopeSize: Int, quota: Int) -> WotsError {
        WotsError(
            .mailboxQuotaExceeded,
            "an envelope of \(envelopeSize) bytes would take the mailbox of \(recipient) past its quota of \(quota) bytes"
        )
    }
}
