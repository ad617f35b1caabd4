public import Foundation
public import WotsCore

/// Encrypted attachment blobs: uploaded in chunks by one account for named recipients, downloaded by them, deleted
/// when every recipient acknowledged or at their expiry. The repository stores what it cannot open.
public protocol BlobRepository: Sendable {
    /// Stores a new, empty blob.
    /// - Parameter quota: most bytes (the `size` of every blob the uploader has stored, this one included).
    /// - Throws: `WotsError.blobQuotaExceeded` when the uploader's stored blobs and this one exceed `quota`.
    func create(_ blob: NewBlob, quota: Int64) async throws

    /// The blob with this id, nil when there is none.
    func blob(_ id: BlobID) async throws -> StoredBlob?

    /// Appends `bytes` (at most `maximumChunkSize`) at `offset`, in the transaction that advances the offset.
    /// - Parameter completedExpiry: the expiry the blob gets when this append completes it, or its `latestExpiry` when
    ///   that is earlier.
    /// - Throws: `WotsError.unknownBlob` for an unknown id, `.blobTooLarge` when the bytes go past the blob's size.
    func append(_ bytes: [UInt8], to id: BlobID, at offset: Int64, completedExpiry: Date) async throws -> BlobAppend

    /// The stored chunk holding byte `offset` of the blob, nil when the blob or the offset is not stored.
    func chunk(of id: BlobID, containing offset: Int64) async throws -> BlobChunk?

    /// Records that `recipient` has the blob; deletes it when every recipient has.
    /// - Returns: whether the blob was deleted.
    /// - Throws: `WotsError.unknownBlob` when there is no such blob or `recipient` is not one of its recipients.
    func acknowledge(_ id: BlobID, by recipient: Token) async throws -> Bool

    /// After `token`'s account was deleted: counts it as having every blob it was waiting for (a blob nobody else
    /// waits for is deleted) and deletes the uploads it left unfinished. Its finished uploads stay for their
    /// recipients, like the messages it sent.
    /// - Returns: how many blobs were deleted.
    func forgetAccount(_ token: Token) async throws -> Int

    /// Deletes every blob whose expiry is at or before `now`.
    /// - Returns: how many were deleted.
    func deleteExpired(now: Date) async throws -> Int

    /// The `size` of every stored blob, summed.
    func storedBytes() async throws -> Int64
}

/// Largest chunk one append stores: one row.
public let maximumBlobChunkSize = 1 << 20

/// A blob about to be created.
public struct NewBlob: Sendable, Hashable {
    public var id: BlobID
    public var uploader: Token
    /// Encrypted bytes the blob will hold.
    public var size: Int64
    public var recipients: [Token]
    public var createdAt: Date
    /// When an unfinished upload is deleted (`latestExpiry` when that is earlier).
    public var expiresAt: Date
    /// When the blob is deleted at the latest, complete or not (its message's expiry); nil for no such limit.
    public var latestExpiry: Date?

    public init(
        id: BlobID,
        uploader: Token,
        size: Int64,
        recipients: [Token],
        createdAt: Date,
        expiresAt: Date,
        latestExpiry: Date? = nil
    ) {
        self.id = id
        self.uploader = uploader
        self.size = size
        self.recipients = recipients
        self.createdAt = createdAt
        self.expiresAt = latestExpiry.map { min($0, expiresAt) } ?? expiresAt
        self.latestExpiry = latestExpiry
    }
}

/// A stored blob's bookkeeping (not its bytes).
public struct StoredBlob: Sendable, Hashable {
    public var id: BlobID
    public var uploader: Token
    public var size: Int64
    /// Bytes stored so far.
    public var received: Int64
    /// Every recipient, acknowledged or not, in token order.
    public var recipients: [Token]
    /// The recipients who acknowledged it, in token order.
    public var acknowledged: [Token]
    public var createdAt: Date
    /// When the sweeper deletes it.
    public var expiresAt: Date
    /// The latest it may be deleted, complete or not; nil for no such limit.
    public var latestExpiry: Date?

    public init(
        id: BlobID,
        uploader: Token,
        size: Int64,
        received: Int64,
        recipients: [Token],
        acknowledged: [Token],
        createdAt: Date,
        expiresAt: Date,
        latestExpiry: Date? = nil
    ) {
        self.id = id
        self.uploader = uploader
        self.size = size
        self.received = received
        self.recipients = recipients
        self.acknowledged = acknowledged
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.latestExpiry = latestExpiry
    }

    /// The expiry a completed blob gets: `completedExpiry`, or its `latestExpiry` when that is earlier.
    public func expiry(onCompletion completedExpiry: Date) -> Date {
        self.latestExpiry.map { min($0, completedExpiry) } ?? completedExpiry
    }

    /// Whether every byte was uploaded.
    public var isComplete: Bool { self.received == self.size }

    /// Whether `token` may see the blob at all: its uploader or one of its recipients.
    public func isVisible(to token: Token) -> Bool {
        token == self.uploader || self.recipients.contains(token)
    }
}

/// What an append did.
public enum BlobAppend: Sendable, Hashable {
    /// Stored; the blob now holds `received` bytes.
    case appended(received: Int64)
    /// Nothing stored: the blob holds `current` bytes, and the append did not start there.
    case offsetMismatch(current: Int64)
}

/// Stored bytes of a blob starting at `offset`.
public struct BlobChunk: Sendable, Hashable {
    public var offset: Int64
    public var bytes: [UInt8]

    public init(offset: Int64, bytes: [UInt8]) {
        self.offset = offset
        self.bytes = bytes
    }
}

extension WotsError {
    /// The refusal of a blob that would take its uploader past the quota.
    package static func blobQuota(uploader: Token, stored: Int64, adding size: Int64, quota: Int64) -> WotsError {
        WotsError(
            .blobQuotaExceeded,
            "the account's unfinished and unfetched blobs hold \(stored) bytes; \(size) more would exceed the relay's "
                + "blob quota of \(quota) bytes"
        )
    }

    /// The refusal of an append past the blob's announced size.
    package static func blobOverrun(_ id: BlobID, size: Int64, offset: Int64, count: Int) -> WotsError {
        WotsError(
            .blobTooLarge,
            "\(count) bytes at offset \(offset) go past blob \(id)'s size of \(size) bytes"
        )
    }
}
