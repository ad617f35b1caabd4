/// One entry of a group envelope's signed recipient list: who gets a slot, for which key, and the hash of that slot.
public struct GroupRecipient: Sendable, Hashable {
    /// 16 + 32 + 32 bytes.
    public static let encodedSize = 80

    public var token: Token
    /// The fingerprint of the key the sender wrapped the content key for.
    public var fingerprint: Fingerprint
    /// SHA-256 of the recipient's slot (the 256-byte RSA-OAEP wrapped content key).
    public var slotHash: [UInt8]

    public init(token: Token, fingerprint: Fingerprint, slotHash: [UInt8]) {
        self.token = token
        self.fingerprint = fingerprint
        self.slotHash = slotHash
    }
}
