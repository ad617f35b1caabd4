public import WotsCore

/// Published on the event bus when another relay process on the same database appended mail (PostgreSQL
/// `LISTEN/NOTIFY`); mail this process stores goes to its sockets directly.
public struct MailArrived: Sendable, Hashable {
    public var recipient: Token
    public var sequence: Int64

    public init(recipient: Token, sequence: Int64) {
        self.recipient = recipient
        self.sequence = sequence
    }
}
