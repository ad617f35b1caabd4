/// One recipient's part of a group message: the content key wrapped with RSA-OAEP for that recipient's encryption
/// key. The relay stores it only in that recipient's mailbox, beside a reference to the body stored once.
public struct GroupSlot: Sendable, Hashable {
    public var recipient: Token
    /// 256 bytes; its SHA-256 is the recipient's entry hash in the signed header.
    public var wrappedKey: [UInt8]

    public init(recipient: Token, wrappedKey: [UInt8]) {
        self.recipient = recipient
        self.wrappedKey = wrappedKey
    }
}
