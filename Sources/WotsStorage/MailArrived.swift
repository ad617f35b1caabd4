public import WotsCore

/// Published on the event bus when a mailbox got new mail, in this process or (through PostgreSQL
/// `LISTEN/NOTIFY`) in another relay process on the same database.
public struct MailArrived: Sendable, Hashable {
    public var recipient: Token
    public var sequence: Int64

    public init(recipient: Token, sequence: Int64) {
        self.recipient = recipient
        self.sequence = sequence
    }
}
