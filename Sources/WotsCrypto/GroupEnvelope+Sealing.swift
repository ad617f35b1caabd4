public import Foundation
public import WotsCore

extension GroupEnvelope {
    /// Encrypts `plaintext` once for every recipient and signs the body with the sender's signing key.
    ///
    /// A fresh AES-256-GCM key `K` and nonce; the plaintext padded as in 1:1 envelopes; `K` wrapped with RSA-OAEP
    /// for each recipient (one slot each) and committed to in the header; the header (with each slot's SHA-256) is the
    /// GCM associated data; RSA-PSS signs `signedBytes`. SECURITY.md, "Group envelope (version 3)".
    /// - Parameters:
    ///   - groupID: the group's id.
    ///   - membershipVersion: the version of the group state the sender uses.
    ///   - membershipStateHash: that state's `stateHash` (32 bytes).
    ///   - senderSequence: the sender's next sequence number in this group, from 1.
    ///   - recipients: 1…256 distinct recipients, in any order (the header sorts them by token).
    ///   - expiresAfter: the header's `expiresAt` is `sentAt` plus this; nil = never.
    /// - Throws: `malformed_envelope` for an empty, oversized or duplicated recipient list or a bad expiry,
    ///   `invalid_key` for unusable recipient keys, `crypto_library` if OpenSSL fails.
    public static func seal(
        plaintext: [UInt8],
        messageID: UUID = Envelope.newMessageID(),
        sentAt: Date = Date(),
        from sender: Token,
        identity: IdentityKeys,
        groupID: GroupID,
        membershipVersion: UInt64,
        membershipStateHash: [UInt8],
        senderSequence: UInt64,
        to recipients: [GroupRecipientKeys],
        expiresAfter: Duration? = nil
    ) throws -> SealedGroupMessage {
        let sorted = recipients.sorted { $0.token < $1.token }
        let parsed = try sorted.map { try ParsedPublicKeys.parse($0.publicKeys) }
        let milliseconds = max(0, (sentAt.timeIntervalSince1970 * 1000).rounded(.down))
        let sentAtMilliseconds = milliseconds < 1.8e19 ? UInt64(milliseconds) : UInt64.max
        let expiresAt = try Envelope.expiresAtMilliseconds(sentAt: sentAtMilliseconds, after: expiresAfter, version: 3)
        var random = SecureRandom.bytes(AESGCM.keySize + AESGCM.nonceSize)
        var contentKey = Array(random[..<AESGCM.keySize])
        let nonce = Array(random[AESGCM.keySize...])
        cleanse(&random)
        defer { cleanse(&contentKey) }
        let slots = try zip(sorted, parsed).map { recipient, keys in
            GroupSlot(recipient: recipient.token, wrappedKey: try keys.encryption.key.encryptOAEP(contentKey))
        }
        let header = GroupEnvelopeHeader(
            messageID: messageID,
            sender: sender,
            senderFingerprint: identity.fingerprint,
            groupID: groupID,
            membershipVersion: membershipVersion,
            membershipStateHash: membershipStateHash,
            senderSequence: senderSequence,
            sentAtMilliseconds: sentAtMilliseconds,
            expiresAtMilliseconds: expiresAt,
            keyCommitment: Self.commitment(to: contentKey),
            recipients: zip(slots, parsed).map { slot, keys in
                GroupRecipient(
                    token: slot.recipient,
                    fingerprint: keys.fingerprint,
                    slotHash: SHA256.hash(slot.wrappedKey)
                )
            }
        )
        try header.validate()
        var padded = MessagePadding.pad(plaintext)
        defer { cleanse(&padded) }
        let ciphertext = try AESGCM.seal(padded, key: contentKey, nonce: nonce, aad: header.encoded)
        var envelope = GroupEnvelope(header: header, nonce: nonce, ciphertext: ciphertext, signature: [])
        envelope.signature = try identity.signing.signPSS(envelope.signedBytes)
        return SealedGroupMessage(envelope: envelope, slots: slots)
    }

    /// Checks, decrypts and unpads the message with the opener's own slot.
    ///
    /// Order (SECURITY.md, "Opening"): structure → the opener's token and one of its key fingerprints are listed
    /// (`notForMe`) → sender fingerprint (`senderKeyMismatch`) → signature (`badSignature`) → the slot's SHA-256 is
    /// the opener's entry hash (`badSignature`, before RSA sees it) → OAEP, key commitment, GCM
    /// (`decryptionFailed`) → padding (`malformed`).
    /// - Parameters:
    ///   - slot: the opener's wrapped content key, as its mailbox delivered it.
    ///   - recipient: the opener's own token.
    ///   - identity: the opener's private keys.
    ///   - senderKeys: the public keys of `header.sender` as the opener knows them.
    public func open(
        slot: [UInt8],
        as recipient: Token,
        identity: IdentityKeys,
        senderKeys: PublicKeys
    ) throws -> OpenedGroupMessage {
        try self.checkStructure()
        guard let entry = self.header.recipient(recipient),
            let encryptionKey = identity.encryptionKey(for: entry.fingerprint)
        else {
            throw WotsError(.notForMe, "group envelope \(self.header.messageID) does not list this account and key")
        }
        try self.verifySignature(senderKeys: senderKeys)
        guard constantTimeEquals(SHA256.hash(slot), entry.slotHash) else {
            throw WotsError(
                .badSignature,
                "the wrapped key of group envelope \(self.header.messageID) is not the one its sender signed"
            )
        }
        let failure = WotsError(.decryptionFailed, "group envelope \(self.header.messageID) does not decrypt")
        var contentKey = try encryptionKey.decryptOAEP(slot)
        defer { cleanse(&contentKey) }
        guard contentKey.count == AESGCM.keySize,
            constantTimeEquals(Self.commitment(to: contentKey), self.header.keyCommitment)
        else { throw failure }
        var padded = try AESGCM.open(
            self.ciphertext,
            key: contentKey,
            nonce: self.nonce,
            aad: self.header.encoded,
            failure: failure
        )
        defer { cleanse(&padded) }
        return OpenedGroupMessage(plaintext: try MessagePadding.unpad(padded), header: self.header)
    }

    /// What the relay checks before storing a group message: structure, sender fingerprint, signature, and exactly
    /// one 256-byte slot per listed recipient, in header order, whose SHA-256 is that recipient's entry hash.
    /// - Throws: `malformed_envelope` for slots that do not match the list, `badSignature` for a slot whose hash is
    ///   not the signed one, and whatever `verifySignature` throws.
    public func verifyForRelay(senderKeys: PublicKeys, slots: [GroupSlot]) throws {
        try self.verifySignature(senderKeys: senderKeys)
        guard slots.count == self.header.recipients.count else {
            throw WotsError(
                .malformedEnvelope,
                "group envelope lists \(self.header.recipients.count) recipients but carries \(slots.count) slots"
            )
        }
        for (slot, entry) in zip(slots, self.header.recipients) {
            guard slot.recipient == entry.token, slot.wrappedKey.count == Self.slotSize else {
                throw WotsError(
                    .malformedEnvelope,
                    "group slot for \(slot.recipient) must be 256 bytes, in the header's order (expected \(entry.token))"
                )
            }
            guard constantTimeEquals(SHA256.hash(slot.wrappedKey), entry.slotHash) else {
                throw WotsError(.badSignature, "group slot for \(slot.recipient) is not the one the sender signed")
            }
        }
    }

    /// Checks the header's sender fingerprint against `senderKeys` and the signature under its signing key.
    /// - Throws: `senderKeyMismatch`, `badSignature`, `invalidKey`, or a structural error.
    public func verifySignature(senderKeys: PublicKeys) throws {
        try self.checkStructure()
        let sender = try ParsedPublicKeys.parse(senderKeys)
        guard constantTimeEquals(self.header.senderFingerprint.bytes, sender.fingerprint.bytes) else {
            throw WotsError(
                .senderKeyMismatch,
                "group envelope \(self.header.messageID) names sender key \(self.header.senderFingerprint.grouped), "
                    + "not the given key \(sender.fingerprint.grouped)"
            )
        }
        guard self.signature.count == RSAKey.modulusSize, self.ciphertext.count <= UInt32.max,
            sender.signing.isValidSignature(self.signature, for: self.signedBytes)
        else {
            throw WotsError(.badSignature, "group envelope \(self.header.messageID) signature does not verify")
        }
    }

    /// SHA-256("wots-group-key-v1" || 0x00 || key).
    static func commitment(to contentKey: [UInt8]) -> [UInt8] { SHA256.hash(Self.keyCommitmentLabel + contentKey) }

    private func checkStructure() throws {
        try self.header.validate()
        guard self.nonce.count == AESGCM.nonceSize else {
            throw WotsError(.malformedEnvelope, "group envelope nonce is \(self.nonce.count) bytes (must be 12)")
        }
    }
}
