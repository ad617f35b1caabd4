public import WotsCore

/// Published on the event bus when an account's keys, directory entry or sessions changed (rotation, deletion), so
/// that whatever a process keeps about the account is dropped. Relays on PostgreSQL forward it to each other.
public struct AccountChanged: Sendable, Hashable {
    /// The account, or nil when any account may have changed (notifications from other processes were lost).
    public var token: Token?
    /// Whether another relay process made the change (and already told the others).
    public var isFromAnotherProcess: Bool

    public init(token: Token?, isFromAnotherProcess: Bool = false) {
        self.token = token
        self.isFromAnotherProcess = isFromAnotherProcess
    }
}
