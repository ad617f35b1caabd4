/// The body of a group message (envelope version 3): encrypted once, signed once, stored once by the relay.
///
/// Each recipient also needs its own slot (the content key wrapped for it), which travels beside the body. Sealing
/// and opening live in `WotsCrypto`; this type holds the fields and their canonical byte layout.
public struct GroupEnvelope: Sendable, Hashable {
    /// Domain-separation label of the signed bytes (the zero byte follows it).
    public static let signatureLabel: [UInt8] = Array("wots-group-v1".utf8) + [0]
    /// Domain-separation label of the key commitment (the zero byte follows it).
    public static let keyCommitmentLabel: [UInt8] = Array("wots-group-key-v1".utf8) + [0]
    /// Size of every slot: one RSA-2048 OAEP ciphertext.
    public static let slotSize = 256

    public var header: GroupEnvelopeHeader
    /// AES-GCM nonce, 12 bytes.
    public var nonce: [UInt8]
    /// AES-256-GCM ciphertext of the padded plaintext followed by its 16-byte tag.
    public var ciphertext: [UInt8]
    /// RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) over `signedBytes` with the sender's signing key.
    public var signature: [UInt8]

    public init(header: GroupEnvelopeHeader, nonce: [UInt8], ciphertext: [UInt8], signature: [UInt8]) {
        self.header = header
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.signature = signature
    }

    private var unsignedBody: [UInt8] {
        var writer = ByteWriter(capacity: self.header.encodedSize + self.ciphertext.count + 32)
        writer.write(self.header.encoded)
        writer.write(uint16Prefixed: self.nonce)
        writer.write(uint32Prefixed: self.ciphertext)
        return writer.bytes
    }

    /// The bytes the sender signs: label, zero byte, header, nonce, ciphertext with tag.
    public var signedBytes: [UInt8] { Self.signatureLabel + self.unsignedBody }

    /// The canonical binary form of the body: header, then length-prefixed nonce, ciphertext and signature.
    public var serialized: [UInt8] {
        var writer = ByteWriter()
        writer.write(self.unsignedBody)
        writer.write(uint16Prefixed: self.signature)
        return writer.bytes
    }

    /// The size of `serialized` without building it.
    public var serializedSize: Int {
        self.header.encodedSize + 2 + self.nonce.count + 4 + self.ciphertext.count + 2 + self.signature.count
    }

    /// Parses the canonical binary form. Checks structure only; `WotsCrypto` checks the signature.
    /// - Throws: `WotsError.malformedEnvelope` or `.unsupportedVersion` saying what is wrong.
    public init(serialized bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let header = try GroupEnvelopeHeader(reading: &reader)
        guard let nonce = reader.readUInt16Prefixed() else {
            throw WotsError(.malformedEnvelope, "group envelope ends inside the nonce")
        }
        guard nonce.count == Envelope.nonceSize else {
            throw WotsError(.malformedEnvelope, "group envelope nonce is \(nonce.count) bytes (must be 12)")
        }
        guard let ciphertext = reader.readUInt32Prefixed() else {
            throw WotsError(.malformedEnvelope, "group envelope ends inside the ciphertext")
        }
        guard let signature = reader.readUInt16Prefixed() else {
            throw WotsError(.malformedEnvelope, "group envelope ends inside the signature")
        }
        guard reader.remaining == 0 else {
            throw WotsError(.malformedEnvelope, "group envelope has \(reader.remaining) trailing bytes")
        }
        self.init(header: header, nonce: nonce, ciphertext: ciphertext, signature: signature)
    }
}
