/// A sealed, signed message. Only the recipient's encryption key opens it; only the sender's signing key made it.
///
/// Sealing and opening live in `WotsCrypto`; this type holds the fields and their canonical byte layout.
public struct Envelope: Sendable, Hashable {
    /// Domain-separation label that starts the signed bytes of a version (the zero byte follows it):
    /// `wots-envelope-v1` or `wots-envelope-v2`.
    public static func signatureLabel(version: UInt8) -> [UInt8] {
        switch version {
        case 1: Self.version1Label
        case 2: Self.version2Label
        default: Self.makeSignatureLabel(version: version)
        }
    }

    private static let version1Label = Self.makeSignatureLabel(version: 1)
    private static let version2Label = Self.makeSignatureLabel(version: 2)

    private static func makeSignatureLabel(version: UInt8) -> [UInt8] { Array("wots-envelope-v\(version)".utf8) + [0] }

    public static let nonceSize = 12

    public var header: EnvelopeHeader
    /// The AES-256 content key wrapped for the recipient with RSA-OAEP (SHA-256, MGF1-SHA-256).
    public var wrappedKey: [UInt8]
    /// AES-GCM nonce, 12 bytes.
    public var nonce: [UInt8]
    /// AES-256-GCM ciphertext of the padded plaintext followed by its 16-byte tag.
    public var ciphertext: [UInt8]
    /// RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) over `signedBytes` with the sender's signing key.
    public var signature: [UInt8]

    public init(header: EnvelopeHeader, wrappedKey: [UInt8], nonce: [UInt8], ciphertext: [UInt8], signature: [UInt8]) {
        self.header = header
        self.wrappedKey = wrappedKey
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.signature = signature
    }

    /// Writes everything but the signature, as laid out in `serialized`.
    private func writeUnsignedBody(to writer: inout ByteWriter) {
        self.header.write(to: &writer)
        writer.write(uint16Prefixed: self.wrappedKey)
        writer.write(uint16Prefixed: self.nonce)
        writer.write(uint32Prefixed: self.ciphertext)
    }

    /// The bytes the sender signs: label, zero byte, header, wrapped key, nonce, ciphertext with tag.
    public var signedBytes: [UInt8] {
        let label = Self.signatureLabel(version: self.header.version)
        var writer = ByteWriter(capacity: label.count + self.serializedSize - 2 - self.signature.count)
        writer.write(label)
        self.writeUnsignedBody(to: &writer)
        return writer.bytes
    }

    /// The canonical binary form: header, then length-prefixed wrapped key, nonce, ciphertext and signature.
    public var serialized: [UInt8] {
        var writer = ByteWriter(capacity: self.serializedSize)
        self.writeUnsignedBody(to: &writer)
        writer.write(uint16Prefixed: self.signature)
        return writer.bytes
    }

    /// The size of `serialized` without building it.
    public var serializedSize: Int {
        self.header.encodedSize + 2 + self.wrappedKey.count + 2 + self.nonce.count + 4 + self.ciphertext.count
            + 2 + self.signature.count
    }

    /// Parses the canonical binary form. Checks structure only; `WotsCrypto` checks the signature.
    /// - Throws: `WotsError.malformedEnvelope` or `.unsupportedVersion` saying what is wrong.
    public init(serialized bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let header = try EnvelopeHeader(reading: &reader)
        guard let wrappedKey = reader.readUInt16Prefixed() else {
            throw WotsError(.malformedEnvelope, "envelope ends inside the wrapped key")
        }
        guard let nonce = reader.readUInt16Prefixed() else {
            throw WotsError(.malformedEnvelope, "envelope ends inside the nonce")
        }
        guard nonce.count == Self.nonceSize else {
            throw WotsError(.malformedEnvelope, "envelope nonce is \(nonce.count) bytes (must be 12)")
        }
        guard let ciphertext = reader.readUInt32Prefixed() else {
            throw WotsError(.malformedEnvelope, "envelope ends inside the ciphertext")
        }
        guard let signature = reader.readUInt16Prefixed() else {
            throw WotsError(.malformedEnvelope, "envelope ends inside the signature")
        }
        guard reader.remaining == 0 else {
            throw WotsError(.malformedEnvelope, "envelope has \(reader.remaining) trailing bytes")
        }
        self.init(header: header, wrappedKey: wrappedKey, nonce: nonce, ciphertext: ciphertext, signature: signature)
    }
}
