public import Foundation
public import WotsCore

extension Envelope {
    /// Encrypts `plaintext` for one recipient and signs the result with the sender's signing key.
    ///
    /// A fresh AES-256-GCM key and 12-byte nonce per message; the plaintext is padded to a multiple of 256 bytes;
    /// the header is the GCM associated data; the content key is wrapped with RSA-OAEP (SHA-256, MGF1-SHA-256)
    /// for the recipient's encryption key; RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) signs `signedBytes`.
    /// - Parameters:
    ///   - messageID: random by default; the relay deduplicates by (sender, id), clients by id.
    ///   - sentAt: the sender's clock, stored in milliseconds. Default now.
    ///   - sender: the sender's token, written in the header.
    ///   - identity: the sender's private keys.
    ///   - recipient: the recipient's token.
    ///   - recipientKeys: the recipient's public keys as the directory published them (and the user verified).
    ///   - version: 2 (default) or 1, which only tests and old peers need.
    ///   - expiresAfter: version 2: the header's `expiresAt` is `sentAt` plus this (whole milliseconds); nil = never.
    /// - Throws: `WotsError.invalidKey` for unusable recipient keys, `crypto_library` if OpenSSL fails,
    ///   `malformed_envelope` for an expiry on a version 1 envelope or one that is not after `sentAt`.
    public static func seal(
        plaintext: [UInt8],
        messageID: UUID = Envelope.newMessageID(),
        sentAt: Date = Date(),
        from sender: Token,
        identity: IdentityKeys,
        to recipient: Token,
        recipientKeys: PublicKeys,
        version: UInt8 = EnvelopeHeader.currentVersion,
        expiresAfter: Duration? = nil
    ) throws -> Envelope {
        try EnvelopeHeader.checkSupported(version)
        let recipientParsed = try ParsedPublicKeys.parse(recipientKeys)
        let milliseconds = max(0, (sentAt.timeIntervalSince1970 * 1000).rounded(.down))
        let sentAtMilliseconds = milliseconds < 1.8e19 ? UInt64(milliseconds) : UInt64.max
        let expiresAt = try Self.expiresAtMilliseconds(
            sentAt: sentAtMilliseconds,
            after: expiresAfter,
            version: version
        )
        let header = EnvelopeHeader(
            version: version,
            messageID: messageID,
            sender: sender,
            senderFingerprint: identity.fingerprint,
            recipient: recipient,
            recipientFingerprint: recipientParsed.fingerprint,
            sentAtMilliseconds: sentAtMilliseconds,
            expiresAtMilliseconds: expiresAt
        )
        // One draw for key and nonce: each RAND_bytes call costs a few microseconds of DRBG bookkeeping.
        var random = SecureRandom.bytes(AESGCM.keySize + AESGCM.nonceSize)
        var contentKey = Array(random[..<AESGCM.keySize])
        let nonce = Array(random[AESGCM.keySize...])
        cleanse(&random)
        defer { cleanse(&contentKey) }
        var padded = MessagePadding.pad(plaintext)
        defer { cleanse(&padded) }
        let ciphertext = try AESGCM.seal(padded, key: contentKey, nonce: nonce, aad: header.encoded)
        let wrappedKey = try recipientParsed.encryption.key.encryptOAEP(contentKey)
        var envelope = Envelope(
            header: header,
            wrappedKey: wrappedKey,
            nonce: nonce,
            ciphertext: ciphertext,
            signature: []
        )
        envelope.signature = try identity.signing.signPSS(envelope.signedBytes)
        return envelope
    }

    /// Checks who the envelope is for and who made it, verifies the signature, then decrypts.
    ///
    /// Order: version → recipient token names the opener and the recipient fingerprint one of its identities, the
    /// current one or a retired one (`notForMe`) → header sender fingerprint is the fingerprint of `senderKeys`
    /// (`senderKeyMismatch`) → signature (`badSignature`), before any decryption → unwrap with the named identity's
    /// encryption key and AES-GCM (`decryptionFailed`) → padding (`malformed`).
    /// - Parameters:
    ///   - recipient: the opener's own token.
    ///   - identity: the opener's private keys.
    ///   - senderKeys: the public keys of the account named by `header.sender`, as the opener knows them.
    /// - Throws: `WotsError` with the code of the first check that failed.
    public func open(as recipient: Token, identity: IdentityKeys, senderKeys: PublicKeys) throws -> OpenedMessage {
        try self.checkVersion()
        guard self.header.recipient == recipient,
            let encryptionKey = identity.encryptionKey(for: self.header.recipientFingerprint)
        else {
            throw WotsError(.notForMe, "envelope \(self.header.messageID) is addressed to another recipient or key")
        }
        try self.verifySignature(senderKeys: senderKeys)
        guard self.nonce.count == AESGCM.nonceSize else {
            throw WotsError(.malformed, "envelope nonce is \(self.nonce.count) bytes (must be 12)")
        }
        var contentKey = try encryptionKey.decryptOAEP(self.wrappedKey)
        defer { cleanse(&contentKey) }
        guard contentKey.count == AESGCM.keySize else {
            throw WotsError(.decryptionFailed, "the wrapped content key is \(contentKey.count) bytes (must be 32)")
        }
        var padded = try AESGCM.open(
            self.ciphertext,
            key: contentKey,
            nonce: self.nonce,
            aad: self.header.encoded,
            failure: WotsError(
                .decryptionFailed,
                "envelope \(self.header.messageID) does not decrypt (GCM tag mismatch)"
            )
        )
        defer { cleanse(&padded) }
        return OpenedMessage(plaintext: try MessagePadding.unpad(padded), header: self.header)
    }

    /// Checks that the header's sender fingerprint is that of `senderKeys` and that the signature verifies under
    /// the sender's signing key. What the relay does before accepting an envelope; it learns nothing else.
    /// - Throws: `WotsError.unsupportedVersion`, `.senderKeyMismatch`, `.badSignature`, or `.invalidKey` when
    ///   `senderKeys` are not usable keys.
    public func verifySignature(senderKeys: PublicKeys) throws {
        try self.checkVersion()
        let sender = try ParsedPublicKeys.parse(senderKeys)
        guard constantTimeEquals(self.header.senderFingerprint.bytes, sender.fingerprint.bytes) else {
            throw WotsError(
                .senderKeyMismatch,
                "envelope \(self.header.messageID) names sender key \(self.header.senderFingerprint.grouped), "
                    + "not the given key \(sender.fingerprint.grouped)"
            )
        }
        guard self.signature.count == RSAKey.modulusSize, self.wrappedKey.count <= UInt16.max,
            self.nonce.count <= UInt16.max, self.ciphertext.count <= UInt32.max,
            sender.signing.isValidSignature(self.signature, for: self.signedBytes)
        else {
            throw WotsError(.badSignature, "envelope \(self.header.messageID) signature does not verify")
        }
    }

    private func checkVersion() throws {
        try EnvelopeHeader.checkSupported(self.header.version)
        _ = try EnvelopeHeader.checkedExpiresAt(
            self.header.expiresAtMilliseconds,
            sentAt: self.header.sentAtMilliseconds
        )
        guard self.header.version != 1 || self.header.expiresAtMilliseconds == 0 else {
            throw WotsError(.malformedEnvelope, "a version 1 envelope cannot expire")
        }
    }

    static func expiresAtMilliseconds(sentAt: UInt64, after: Duration?, version: UInt8) throws -> UInt64 {
        guard let after else { return 0 }
        guard version != 1 else {
            throw WotsError(.malformedEnvelope, "a version 1 envelope cannot expire")
        }
        let (seconds, attoseconds) = after.components
        guard seconds >= 0, seconds < 1 << 40 else {
            throw WotsError(.malformedEnvelope, "an envelope's expiry must be after it was sent, within 2^40 seconds")
        }
        let total = sentAt.addingReportingOverflow(UInt64(seconds) * 1000 + UInt64(attoseconds / 1_000_000_000_000_000))
        return try EnvelopeHeader.checkedExpiresAt(total.overflow ? UInt64.max : total.partialValue, sentAt: sentAt)
    }
}
