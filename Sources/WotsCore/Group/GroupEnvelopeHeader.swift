public import Foundation

/// The clear, signed part of a group envelope (version 3): who sent it, to which group under which membership state,
/// and the whole recipient list with a hash of each recipient's wrapped key. It is the AES-GCM associated data.
///
/// Layout in SECURITY.md, "Group envelope (version 3)": `179 + 80 × n` bytes.
public struct GroupEnvelopeHeader: Sendable, Hashable {
    public static let version: UInt8 = 3
    /// Everything before the recipient list.
    public static let fixedSize = 179
    /// The most recipients any group envelope may list; relays may allow fewer.
    public static let maximumRecipients = 256

    public var messageID: UUID
    public var sender: Token
    public var senderFingerprint: Fingerprint
    public var groupID: GroupID
    /// The version of the group state the sender used.
    public var membershipVersion: UInt64
    /// The `stateHash` of that state, 32 bytes.
    public var membershipStateHash: [UInt8]
    /// Per (group, sender): 1 for the sender's first group envelope, +1 for each next one.
    public var senderSequence: UInt64
    public var sentAtMilliseconds: UInt64
    /// 0 = never.
    public var expiresAtMilliseconds: UInt64
    /// SHA-256("wots-group-key-v1" || 0x00 || content key).
    public var keyCommitment: [UInt8]
    /// Sorted by token bytes, no duplicates, 1…256 entries.
    public var recipients: [GroupRecipient]

    public init(
        messageID: UUID,
        sender: Token,
        senderFingerprint: Fingerprint,
        groupID: GroupID,
        membershipVersion: UInt64,
        membershipStateHash: [UInt8],
        senderSequence: UInt64,
        sentAtMilliseconds: UInt64,
        expiresAtMilliseconds: UInt64,
        keyCommitment: [UInt8],
        recipients: [GroupRecipient]
    ) {
        self.messageID = messageID
        self.sender = sender
        self.senderFingerprint = senderFingerprint
        self.groupID = groupID
        self.membershipVersion = membershipVersion
        self.membershipStateHash = membershipStateHash
        self.senderSequence = senderSequence
        self.sentAtMilliseconds = sentAtMilliseconds
        self.expiresAtMilliseconds = expiresAtMilliseconds
        self.keyCommitment = keyCommitment
        self.recipients = recipients
    }

    public var encodedSize: Int { Self.fixedSize + GroupRecipient.encodedSize * self.recipients.count }

    /// The message's identity: (sender, id).
    public var messageKey: MessageKey { MessageKey(sender: self.sender, id: self.messageID) }

    public var sentAt: Date { Date(timeIntervalSince1970: Double(self.sentAtMilliseconds) / 1000) }

    /// When the message disappears; nil for never.
    public var expiresAt: Date? {
        self.expiresAtMilliseconds == 0 ? nil : Date(timeIntervalSince1970: Double(self.expiresAtMilliseconds) / 1000)
    }

    /// The recipient entry naming `token`, if any.
    public func recipient(_ token: Token) -> GroupRecipient? { self.recipients.first { $0.token == token } }

    /// The header bytes in SECURITY.md's order.
    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: self.encodedSize)
        writer.write(integer: Self.version)
        withUnsafeBytes(of: self.messageID.uuid) { writer.write($0) }
        writer.write(self.sender.bytes)
        writer.write(self.senderFingerprint.bytes)
        writer.write(self.groupID.bytes)
        writer.write(integer: self.membershipVersion)
        writer.write(self.membershipStateHash)
        writer.write(integer: self.senderSequence)
        writer.write(integer: self.sentAtMilliseconds)
        writer.write(integer: self.expiresAtMilliseconds)
        writer.write(self.keyCommitment)
        writer.write(integer: UInt16(clamping: self.recipients.count))
        for recipient in self.recipients {
            writer.write(recipient.token.bytes)
            writer.write(recipient.fingerprint.bytes)
            writer.write(recipient.slotHash)
        }
        return writer.bytes
    }

    /// Checks the rules a parsed header obeys: sizes, 1…256 recipients sorted without duplicates, positive versions
    /// and sequence, and the dates of version 2.
    /// - Throws: `malformed_envelope` or `sent_at_out_of_range` naming the rule.
    public func validate() throws {
        guard self.membershipStateHash.count == 32, self.keyCommitment.count == 32,
            self.recipients.allSatisfy({ $0.slotHash.count == 32 })
        else {
            throw WotsError(.malformedEnvelope, "group envelope hashes must be 32 bytes each")
        }
        guard (1...Self.maximumRecipients).contains(self.recipients.count) else {
            throw WotsError(
                .malformedEnvelope,
                "group envelope lists \(self.recipients.count) recipients (1–\(Self.maximumRecipients))"
            )
        }
        for (earlier, later) in zip(self.recipients, self.recipients.dropFirst()) where !(earlier.token < later.token) {
            throw WotsError(
                .malformedEnvelope,
                "group envelope recipients must be sorted by token without duplicates (\(later.token) is out of order)"
            )
        }
        guard self.membershipVersion >= 1, self.senderSequence >= 1 else {
            throw WotsError(.malformedEnvelope, "group envelope membership version and sender sequence start at 1")
        }
        let sentAt = try EnvelopeHeader.checkedSentAt(self.sentAtMilliseconds)
        _ = try EnvelopeHeader.checkedExpiresAt(self.expiresAtMilliseconds, sentAt: sentAt)
    }

    /// Parses and validates a header.
    /// - Throws: `unsupported_version` for another first byte, `malformed_envelope` when short or invalid.
    package init(reading reader: inout ByteReader) throws {
        guard let version = reader.readInteger(as: UInt8.self) else {
            throw WotsError(.malformedEnvelope, "group envelope is empty")
        }
        guard version == Self.version else {
            throw WotsError(.unsupportedVersion, "envelope version \(version) is not a group envelope (3)")
        }
        let short = WotsError(.malformedEnvelope, "group envelope header is shorter than its recipient count says")
        guard let id = reader.read(count: 16), let sender = reader.read(count: 16),
            let senderFingerprint = reader.read(count: 32), let groupID = reader.read(count: 16),
            let membershipVersion = reader.readInteger(as: UInt64.self), let stateHash = reader.read(count: 32),
            let senderSequence = reader.readInteger(as: UInt64.self), let sentAt = reader.readInteger(as: UInt64.self),
            let expiresAt = reader.readInteger(as: UInt64.self), let commitment = reader.read(count: 32),
            let count = reader.readInteger(as: UInt16.self)
        else { throw short }
        var recipients: [GroupRecipient] = []
        recipients.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let token = reader.read(count: 16), let fingerprint = reader.read(count: 32),
                let slotHash = reader.read(count: 32)
            else { throw short }
            recipients.append(
                GroupRecipient(
                    token: try Token(bytes: token),
                    fingerprint: try Fingerprint(bytes: fingerprint),
                    slotHash: slotHash
                )
            )
        }
        self.init(
            messageID: UUID(
                uuid: (
                    id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                    id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]
                )
            ),
            sender: try Token(bytes: sender),
            senderFingerprint: try Fingerprint(bytes: senderFingerprint),
            groupID: try GroupID(bytes: groupID),
            membershipVersion: membershipVersion,
            membershipStateHash: stateHash,
            senderSequence: senderSequence,
            sentAtMilliseconds: sentAt,
            expiresAtMilliseconds: expiresAt,
            keyCommitment: commitment,
            recipients: recipients
        )
        try self.validate()
    }
}
