public import Foundation

/// `POST /v1/blobs`: announces an upload of `size` encrypted bytes for these recipients.
public struct CreateBlobRequest: Sendable, Hashable, Codable {
    /// Most recipients one blob may name.
    public static let maximumRecipients = 256

    /// Encrypted bytes that will be uploaded.
    public var size: Int64
    /// Who may download it (1–256 tokens).
    public var recipients: [Token]
    /// When the message carrying it disappears: the relay deletes the blob then at the latest, finished or not.
    /// Absent for a message without a timer. Must be in the future.
    public var expiresAt: Date?

    public init(size: Int64, recipients: [Token], expiresAt: Date? = nil) {
        self.size = size
        self.recipients = recipients
        self.expiresAt = expiresAt
    }
}

/// A blob's state: `POST /v1/blobs` answers with it.
public struct BlobStatus: Sendable, Hashable, Codable {
    public var id: BlobID
    /// Encrypted bytes the blob will hold once complete.
    public var size: Int64
    /// Bytes uploaded so far (the next `Upload-Offset`).
    public var received: Int64
    /// When the relay deletes it: 24 hours after creation while unfinished, the relay's retention once complete, never
    /// after the `expiresAt` it was created with.
    public var expiresAt: Date

    public init(id: BlobID, size: Int64, received: Int64, expiresAt: Date) {
        self.id = id
        self.size = size
        self.received = received
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/blobs/{id}/ack`'s answer.
public struct BlobAcknowledgement: Sendable, Hashable, Codable {
    /// True when this was the last recipient and the relay deleted the blob.
    public var deleted: Bool

    public init(deleted: Bool) { self.deleted = deleted }
}
