public import Foundation
import Synchronization
public import WotsCore

/// A `BlobRepository` held in memory, for tests and throwaway relays.
public final class InMemoryBlobRepository: BlobRepository {
    private struct Entry {
        var blob: StoredBlob
        var chunks: [BlobChunk] = []
    }

    private let entries = Mutex<[BlobID: Entry]>([:])

    /// Creates an empty repository.
    public init() {}

    public func create(_ blob: NewBlob, quota: Int64) async throws {
        try self.entries.withLock { entries in
            let stored = entries.values.filter { $0.blob.uploader == blob.uploader }.reduce(0) { $0 + $1.blob.size }
            guard stored + blob.size <= quota else {
                throw WotsError.blobQuota(uploader: blob.uploader, stored: stored, adding: blob.size, quota: quota)
            }
            entries[blob.id] = Entry(
                blob: StoredBlob(
                    id: blob.id,
                    uploader: blob.uploader,
                    size: blob.size,
                    received: 0,
                    recipients: Array(Set(blob.recipients)).sorted(),
                    acknowledged: [],
                    createdAt: blob.createdAt,
                    expiresAt: blob.expiresAt,
                    latestExpiry: blob.latestExpiry
                )
            )
        }
    }

    public func blob(_ id: BlobID) async throws -> StoredBlob? {
        self.entries.withLock { $0[id]?.blob }
    }

    public func append(_ bytes: [UInt8], to id: BlobID, at offset: Int64, completedExpiry: Date) async throws
        -> BlobAppend
    {
        try self.entries.withLock { entries in
            guard var entry = entries[id] else { throw WotsError(.unknownBlob, "no blob \(id)") }
            guard offset == entry.blob.received else { return .offsetMismatch(current: entry.blob.received) }
            guard offset + Int64(bytes.count) <= entry.blob.size else {
                throw WotsError.blobOverrun(id, size: entry.blob.size, offset: offset, count: bytes.count)
            }
            if !bytes.isEmpty { entry.chunks.append(BlobChunk(offset: offset, bytes: bytes)) }
            entry.blob.received += Int64(bytes.count)
            if entry.blob.isComplete { entry.blob.expiresAt = entry.blob.expiry(onCompletion: completedExpiry) }
            entries[id] = entry
            return .appended(received: entry.blob.received)
        }
    }

    public func chunk(of id: BlobID, containing offset: Int64) async throws -> BlobChunk? {
        self.entries.withLock { entries in
            entries[id]?.chunks.last { $0.offset <= offset && offset < $0.offset + Int64($0.bytes.count) }
        }
    }

    public func acknowledge(_ id: BlobID, by recipient: Token) async throws -> Bool {
        try self.entries.withLock { entries in
            guard var entry = entries[id], entry.blob.recipients.contains(recipient) else {
                throw WotsError(.unknownBlob, "no blob \(id) for this recipient")
            }
            entry.blob.acknowledged = Array(Set(entry.blob.acknowledged + [recipient])).sorted()
            guard entry.blob.acknowledged.count < entry.blob.recipients.count else {
                entries[id] = nil
                return true
            }
            entries[id] = entry
            return false
        }
    }

    public func forgetAccount(_ token: Token) async throws -> Int {
        self.entries.withLock { entries in
            var deleted = 0
            for (id, entry) in entries {
                var blob = entry.blob
                if blob.recipients.contains(token) {
                    blob.acknowledged = Array(Set(blob.acknowledged + [token])).sorted()
                }
                let unfinished = blob.uploader == token && blob.received < blob.size
                if unfinished || (blob.recipients.contains(token) && blob.acknowledged.count == blob.recipients.count) {
                    entries[id] = nil
                    deleted += 1
                } else {
                    entries[id]?.blob = blob
                }
            }
            return deleted
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        self.entries.withLock { entries in
            let expired = entries.filter { $0.value.blob.expiresAt <= now }.map(\.key)
            for id in expired { entries[id] = nil }
            return expired.count
        }
    }

    public func storedBytes() async throws -> Int64 {
        self.entries.withLock { $0.values.reduce(0) { $0 + $1.blob.size } }
    }
}
