public import WotsCore

extension Envelope {
    /// Length of `acknowledgementTag`.
    public static let acknowledgementTagSize = 256

    /// What a mailbox keeps of an acknowledged envelope to tell a retry of it from a different envelope reusing its
    /// id: the last 256 bytes of the serialized form, which are the sender's signature over everything else (an
    /// RSA-2048 signature is 256 bytes), so no two different envelopes share it. Every backend keeps the same bytes,
    /// so remembered acknowledgements survive a move from one database to another.
    public var acknowledgementTag: [UInt8] {
        // The serialized form ends with the signature: when it is long enough, the tag is its end, and the envelope
        // need not be serialized for it.
        guard self.signature.count >= Self.acknowledgementTagSize else {
            return Array(self.serialized.suffix(Self.acknowledgementTagSize))
        }
        return Array(self.signature.suffix(Self.acknowledgementTagSize))
    }
}
