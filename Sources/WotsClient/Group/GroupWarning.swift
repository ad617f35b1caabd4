public import WotsCore

/// Something a member's client shows beside an accepted group message.
public enum GroupWarning: Sendable, Hashable {
    /// The signed recipient list is not the named state's members minus the sender: who else got it, who did not.
    case recipientsDiffer(extra: [Token], missing: [Token])
    /// The sender's sequence jumped: this member did not receive `count` of that sender's messages.
    case missedMessages(from: Token, count: UInt64)
    /// A member's key is not the one the group state recorded.
    case keyChanged(member: Token)
}
