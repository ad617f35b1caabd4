import Foundation

/// The JSON form used by the relay API: header fields by name, binary fields in standard base64.
extension Envelope: Codable {
    private enum CodingKeys: String, CodingKey {
        case version, id, sender, senderFingerprint, recipient, recipientFingerprint, sentAt, expiresAt
        case wrappedKey, nonce, ciphertext, signature
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(UInt8.self, forKey: .version)
        try EnvelopeHeader.checkSupported(version)
        let sentAt = try EnvelopeHeader.checkedSentAt(container.decode(UInt64.self, forKey: .sentAt))
        let expiresAt = try Self.decodeExpiresAt(from: container, version: version, sentAt: sentAt)
        let header = EnvelopeHeader(
            version: version,
            messageID: try container.decodeMessageID(forKey: .id),
            sender: try container.decode(Token.self, forKey: .sender),
            senderFingerprint: try container.decode(Fingerprint.self, forKey: .senderFingerprint),
            recipient: try container.decode(Token.self, forKey: .recipient),
            recipientFingerprint: try container.decode(Fingerprint.self, forKey: .recipientFingerprint),
            sentAtMilliseconds: sentAt,
            expiresAtMilliseconds: expiresAt
        )
        let nonce = try container.decodeBase64(forKey: .nonce)
        guard nonce.count == Self.nonceSize else {
            throw WotsError(.malformedEnvelope, "envelope nonce is \(nonce.count) bytes (must be 12)")
        }
        let wrappedKey = try container.decodeBase64(forKey: .wrappedKey)
        let signature = try container.decodeBase64(forKey: .signature)
        guard wrappedKey.count <= UInt16.max, signature.count <= UInt16.max else {
            throw WotsError(.malformedEnvelope, "envelope wrapped key or signature is longer than 65,535 bytes")
        }
        self.init(
            header: header,
            wrappedKey: wrappedKey,
            nonce: nonce,
            ciphertext: try container.decodeBase64(forKey: .ciphertext),
            signature: signature
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.header.version, forKey: .version)
        try container.encode(self.header.messageID.lowercasedString, forKey: .id)
        try container.encode(self.header.sender, forKey: .sender)
        try container.encode(self.header.senderFingerprint, forKey: .senderFingerprint)
        try container.encode(self.header.recipient, forKey: .recipient)
        try container.encode(self.header.recipientFingerprint, forKey: .recipientFingerprint)
        try container.encode(self.header.sentAtMilliseconds, forKey: .sentAt)
        if self.header.version != 1 {
            try container.encode(self.header.expiresAtMilliseconds, forKey: .expiresAt)
        }
        try container.encodeBase64(self.wrappedKey, forKey: .wrappedKey)
        try container.encodeBase64(self.nonce, forKey: .nonce)
        try container.encodeBase64(self.ciphertext, forKey: .ciphertext)
        try container.encodeBase64(self.signature, forKey: .signature)
    }

    /// Version 2 requires `expiresAt` (0 = never); version 1 must not have it.
    private static func decodeExpiresAt(
        from container: KeyedDecodingContainer<CodingKeys>,
        version: UInt8,
        sentAt: UInt64
    ) throws -> UInt64 {
        guard version != 1 else {
            guard !container.contains(.expiresAt) else {
                throw WotsError(.malformedEnvelope, "a version 1 envelope has no expiresAt")
            }
            return 0
        }
        guard container.contains(.expiresAt) else {
            throw WotsError(.malformedEnvelope, "a version \(version) envelope needs expiresAt (0 = never)")
        }
        return try EnvelopeHeader.checkedExpiresAt(container.decode(UInt64.self, forKey: .expiresAt), sentAt: sentAt)
    }
}
