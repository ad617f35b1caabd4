public import WotsCore

/// A recipient of a group message to seal: its token and its public keys as the sender knows (and trusts) them.
public struct GroupRecipientKeys: Sendable, Hashable {
    public var token: Token
    public var publicKeys: PublicKeys

    public init(token: Token, publicKeys: PublicKeys) {
        self.token = token
        self.publicKeys = publicKeys
    }
}
