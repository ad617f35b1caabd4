public import Foundation

/// The clear part of an envelope: who sent it to whom, under which keys, when. It is the AES-GCM associated data
/// and part of what the sender signs, so none of it can be changed without the recipient noticing.
public struct EnvelopeHeader: Sendable, Hashable {
    /// The only layout this build reads and writes.
    public static let currentVersion: UInt8 = 1
    /// 1 + 16 + 16 + 32 + 16 + 32 + 8.
    public static let encodedSize = 121

    public var version: UInt8
    public var messageID: UUID
    public var sender: Token
    public var senderFingerprint: Fingerprint
    public var recipient: Token
    public var recipientFingerprint: Fingerprint
    /// Milliseconds since 1970-01-01T00:00:00Z, as the sender's clock said.
    public var sentAtMilliseconds: UInt64

    public init(
        version: UInt8 = Self.currentVersion,
        messageID: UUID,
        sender: Token,
        senderFingerprint: Fingerprint,
        recipient: Token,
        recipientFingerprint: Fingerprint,
        sentAtMilliseconds: UInt64
    ) {
        self.version = version
        self.messageID = messageID
        self.sender = sender
        self.senderFingerprint = senderFingerprint
        self.recipient = recipient
        self.recipientFingerprint = recipientFingerprint
        self.sentAtMilliseconds = sentAtMilliseconds
    }

    public var sentAt: Date { Date(timeIntervalSince1970: Double(self.sentAtMilliseconds) / 1000) }

    /// The 121 header bytes, in the order SECURITY.md gives.
    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: Self.encodedSize)
        writer.write(integer: self.version)
        withUnsafeBytes(of: self.messageID.uuid) { writer.write($0) }
        writer.write(self.sender.bytes)
        writer.write(self.senderFingerprint.bytes)
        writer.write(self.recipient.bytes)
        writer.write(self.recipientFingerprint.bytes)
        writer.write(integer: self.sentAtMilliseconds)
        return writer.bytes
    }

    /// Parses a header from the reader.
    /// - Throws: `WotsError.unsupportedVersion` for another version, `.malformedEnvelope` when too short.
    package init(reading reader: inout ByteReader) throws {
        guard let version = reader.readInteger(as: UInt8.self) else {
            throw WotsError(.malformedEnvelope, "envelope is empty")
        }
        guard version == Self.currentVersion else {
            throw WotsError(.unsupportedVersion, "envelope version \(version) is not supported (only 1)")
        }
        guard let id = reader.read(count: 16),
            let sender = reader.read(count: 16),
            let senderFingerprint = reader.read(count: 32),
            let recipient = reader.read(count: 16),
            let recipientFingerprint = reader.read(count: 32),
            let sentAt = reader.readInteger(as: UInt64.self)
        else {
            throw WotsError(.malformedEnvelope, "envelope header is shorter than \(Self.encodedSize) bytes")
        }
        self.version = version
        self.messageID = UUID(
            uuid: (
                id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]
            )
        )
        self.sender = try Token(bytes: sender)
        self.senderFingerprint = try Fingerprint(bytes: senderFingerprint)
        self.recipient = try Token(bytes: recipient)
        self.recipientFingerprint = try Fingerprint(bytes: recipientFingerprint)
        self.sentAtMilliseconds = try Self.checkedSentAt(sentAt)
    }

    /// Largest `sentAt`: 2^53 − 1 milliseconds (year 287,396), the largest integer a JavaScript number holds exactly.
    public static let maximumSentAt: UInt64 = (1 << 53) - 1

    /// - Throws: `sent_at_out_of_range` above `maximumSentAt`.
    package static func checkedSentAt(_ milliseconds: UInt64) throws -> UInt64 {
        guard milliseconds <= Self.maximumSentAt else {
            throw WotsError(.sentAtOutOfRange, "envelope sentAt \(milliseconds) ms is beyond 2^53 − 1")
        }
        return milliseconds
    }
}
