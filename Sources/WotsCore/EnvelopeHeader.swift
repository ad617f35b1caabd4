public import Foundation

/// The clear part of an envelope: who sent it to whom, under which keys, when. It is the AES-GCM associated data
/// and part of what the sender signs, so none of it can be changed without the recipient noticing.
public struct EnvelopeHeader: Sendable, Hashable {
    /// The layout clients write: version 2, which adds `expiresAt`.
    public static let currentVersion: UInt8 = 2
    /// Every layout this build reads: 1 (121 bytes) and 2 (129 bytes).
    public static let supportedVersions: ClosedRange<UInt8> = 1...2
    /// Version 1: 1 + 16 + 16 + 32 + 16 + 32 + 8.
    public static let version1EncodedSize = 121
    /// Version 2: version 1's fields, then `expiresAt`.
    public static let version2EncodedSize = 129

    public var version: UInt8
    public var messageID: UUID
    public var sender: Token
    public var senderFingerprint: Fingerprint
    public var recipient: Token
    public var recipientFingerprint: Fingerprint
    /// Milliseconds since 1970-01-01T00:00:00Z, as the sender's clock said.
    public var sentAtMilliseconds: UInt64
    /// Version 2 only: when the relay must delete an undelivered copy and clients the opened message, in milliseconds
    /// since 1970; 0 means never. Always 0 in version 1.
    public var expiresAtMilliseconds: UInt64

    public init(
        version: UInt8 = Self.currentVersion,
        messageID: UUID,
        sender: Token,
        senderFingerprint: Fingerprint,
        recipient: Token,
        recipientFingerprint: Fingerprint,
        sentAtMilliseconds: UInt64,
        expiresAtMilliseconds: UInt64 = 0
    ) {
        self.version = version
        self.messageID = messageID
        self.sender = sender
        self.senderFingerprint = senderFingerprint
        self.recipient = recipient
        self.recipientFingerprint = recipientFingerprint
        self.sentAtMilliseconds = sentAtMilliseconds
        self.expiresAtMilliseconds = expiresAtMilliseconds
    }

    /// The size of `encoded` for this header's version.
    public var encodedSize: Int { self.version == 1 ? Self.version1EncodedSize : Self.version2EncodedSize }

    /// When the message expires, or nil when it never does.
    public var expiresAt: Date? {
        self.expiresAtMilliseconds == 0 ? nil : Date(timeIntervalSince1970: Double(self.expiresAtMilliseconds) / 1000)
    }

    public var sentAt: Date { Date(timeIntervalSince1970: Double(self.sentAtMilliseconds) / 1000) }

    /// The 121 (version 1) or 129 (version 2) header bytes, in the order SECURITY.md gives.
    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: self.encodedSize)
        self.write(to: &writer)
        return writer.bytes
    }

    /// Appends `encoded` to `writer` without building it apart.
    package func write(to writer: inout ByteWriter) {
        writer.write(integer: self.version)
        withUnsafeBytes(of: self.messageID.uuid) { writer.write($0) }
        writer.write(self.sender.bytes)
        writer.write(self.senderFingerprint.bytes)
        writer.write(self.recipient.bytes)
        writer.write(self.recipientFingerprint.bytes)
        writer.write(integer: self.sentAtMilliseconds)
        if self.version != 1 {
            writer.write(integer: self.expiresAtMilliseconds)
        }
    }

    /// Parses a header from the reader.
    /// - Throws: `WotsError.unsupportedVersion` for another version, `.malformedEnvelope` when too short.
    package init(reading reader: inout ByteReader) throws {
        guard let version = reader.readInteger(as: UInt8.self) else {
            throw WotsError(.malformedEnvelope, "envelope is empty")
        }
        try Self.checkSupported(version)
        guard let id = reader.read(count: 16),
            let sender = reader.read(count: 16),
            let senderFingerprint = reader.read(count: 32),
            let recipient = reader.read(count: 16),
            let recipientFingerprint = reader.read(count: 32),
            let sentAt = reader.readInteger(as: UInt64.self)
        else {
            throw WotsError(.malformedEnvelope, "envelope header is shorter than \(Self.version1EncodedSize) bytes")
        }
        var expiresAt: UInt64 = 0
        if version != 1 {
            guard let read = reader.readInteger(as: UInt64.self) else {
                throw WotsError(.malformedEnvelope, "envelope header is shorter than \(Self.version2EncodedSize) bytes")
            }
            expiresAt = read
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
        self.expiresAtMilliseconds = try Self.checkedExpiresAt(expiresAt, sentAt: self.sentAtMilliseconds)
    }

    /// - Throws: `unsupported_version` for a version this build does not read.
    package static func checkSupported(_ version: UInt8) throws {
        guard Self.supportedVersions.contains(version) else {
            throw WotsError(.unsupportedVersion, "envelope version \(version) is not supported (only 1 and 2)")
        }
    }

    /// - Throws: `malformed_envelope` when a non-zero `expiresAt` is not after `sentAt` or beyond 2^53 − 1.
    package static func checkedExpiresAt(_ milliseconds: UInt64, sentAt: UInt64) throws -> UInt64 {
        guard milliseconds == 0 || (milliseconds > sentAt && milliseconds <= Self.maximumSentAt) else {
            throw WotsError(
                .malformedEnvelope,
                "envelope expiresAt \(milliseconds) ms must be 0 (never) or after sentAt \(sentAt) ms and at most 2^53 − 1"
            )
        }
        return milliseconds
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
