import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WotsCore
import WotsCrypto
import WotsStorage

/// Encrypted attachment blobs: create, upload in chunks (resumable), ask the offset, download (resumable), acknowledge.
/// Every route here is behind `SessionMiddleware`. A blob the caller may not see answers exactly as one that does not
/// exist, `unknown_blob`.
struct BlobRoutes: Sendable {
    let storage: RelayStorage
    let configuration: RelayConfiguration
    let metrics: RelayMetrics
    /// The per-account send limiter: announcing a blob counts as a send, so nobody fills the database with rows of
    /// tiny blobs faster than with messages.
    let limiter: TokenBucketLimiter
    /// The time expiries are set and judged by.
    let clock: RelayClock

    func register(on group: RouterGroup<RelayRequestContext>) {
        group.post("/blobs") { request, context in
            try await self.create(request, uploader: try context.requireToken())
        }
        group.patch("/blobs/:id") { request, context in
            try await self.append(request, id: try Self.id(context), caller: try context.requireToken())
        }
        group.head("/blobs/:id") { _, context in
            let blob = try await self.visibleBlob(try Self.id(context), to: try context.requireToken())
            var headers = Self.offsetHeaders(blob)
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers)
        }
        group.get("/blobs/:id") { request, context in
            try await self.download(request, id: try Self.id(context), caller: try context.requireToken())
        }
        group.post("/blobs/:id/ack") { _, context in
            let deleted = try await self.storage.blobs.acknowledge(try Self.id(context), by: try context.requireToken())
            return try JSONBody.response(BlobAcknowledgement(deleted: deleted))
        }
    }

    private func create(_ request: Request, uploader: Token) async throws -> Response {
        if let wait = self.limiter.acquire(uploader.description) {
            throw WotsError(.rateLimited, "too many uploads; retry in \(wait) s", retryAfterSeconds: wait)
        }
        let body = try await JSONBody.decode(CreateBlobRequest.self, from: request, limit: 65_536)
        guard (1...CreateBlobRequest.maximumRecipients).contains(body.recipients.count) else {
            throw WotsError(
                .invalidArgument,
                "recipients must name 1–\(CreateBlobRequest.maximumRecipients) tokens, got \(body.recipients.count)"
            )
        }
        guard body.size >= 1 else { throw WotsError(.invalidArgument, "size must be at least 1, got \(body.size)") }
        guard body.size <= self.configuration.maximumBlobSize else {
            throw WotsError(
                .blobTooLarge,
                "a blob of \(body.size) bytes is larger than this relay's limit of "
                    + "\(self.configuration.maximumBlobSize) bytes"
            )
        }
        let now = self.clock.date()
        if let latest = body.expiresAt, latest <= now {
            throw WotsError(
                .messageExpired,
                "expiresAt \(latest.formatted(.iso8601)) is not after the relay's time \(now.formatted(.iso8601))"
            )
        }
        let blob = NewBlob(
            id: try BlobID(bytes: SecureRandom.bytes(16)),
            uploader: uploader,
            size: body.size,
            recipients: body.recipients,
            createdAt: now,
            expiresAt: now.addingTimeInterval(self.configuration.unfinishedBlobLifetime.seconds),
            latestExpiry: body.expiresAt
        )
        try await self.storage.blobs.create(blob, quota: self.configuration.blobQuota)
        return try JSONBody.response(
            BlobStatus(id: blob.id, size: blob.size, received: 0, expiresAt: blob.expiresAt),
            status: .created
        )
    }

    private func append(_ request: Request, id: BlobID, caller: Token) async throws -> Response {
        guard let text = request.headers[.uploadOffset], let offset = Int64(text), offset >= 0 else {
            throw WotsError(.invalidArgument, "Upload-Offset must be a whole number ≥ 0")
        }
        let blob = try await self.visibleBlob(id, to: caller)
        guard blob.uploader == caller else { throw Self.unknown(id) }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maximumBlobChunkSize)
        } catch {
            throw WotsError(.requestTooLarge, "an upload chunk is at most \(maximumBlobChunkSize) bytes")
        }
        let bytes = Array(body.readableBytesView)
        let outcome = try await self.storage.blobs.append(
            bytes,
            to: id,
            at: offset,
            completedExpiry: self.clock.date().addingTimeInterval(self.configuration.messageRetention.seconds)
        )
        switch outcome {
        case .appended(let received):
            self.metrics.blobBytesUploaded.increment(by: bytes.count)
            var headers = HTTPFields()
            headers[.uploadOffset] = String(received)
            return Response(status: .noContent, headers: headers)
        case .offsetMismatch(let current):
            var refusal = Refusal(
                WotsError(.blobOffsetMismatch, "Upload-Offset \(offset) is not the blob's offset \(current)")
            )
            refusal.uploadOffset = current
            throw refusal
        }
    }

    private func download(_ request: Request, id: BlobID, caller: Token) async throws -> Response {
        let blob = try await self.visibleBlob(id, to: caller)
        guard blob.recipients.contains(caller) else { throw Self.unknown(id) }
        guard blob.isComplete else {
            throw WotsError(.blobIncomplete, "blob \(id) holds \(blob.received) of \(blob.size) bytes so far")
        }
        let range = try Self.range(request.headers[.range], size: blob.size)
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = "no-store"
        if range.lowerBound > 0 || range.upperBound < blob.size {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(blob.size)"
        }
        let blobs = self.storage.blobs
        let isPartial = headers[.contentRange] != nil
        return Response(
            status: isPartial ? .partialContent : .ok,
            headers: headers,
            body: ResponseBody(contentLength: Int(range.count)) { writer in
                var offset = range.lowerBound
                while offset < range.upperBound {
                    guard let chunk = try await blobs.chunk(of: id, containing: offset) else {
                        throw WotsError(.storageCorrupted, "blob \(id) has no stored bytes at offset \(offset)")
                    }
                    let start = Int(offset - chunk.offset)
                    let end = Int(min(range.upperBound - chunk.offset, Int64(chunk.bytes.count)))
                    try await writer.write(ByteBuffer(bytes: chunk.bytes[start..<end]))
                    offset = chunk.offset + Int64(end)
                }
                try await writer.finish(nil)
            }
        )
    }

    private func visibleBlob(_ id: BlobID, to caller: Token) async throws -> StoredBlob {
        // Past its expiry a blob is gone, whether or not the sweeper has deleted it yet.
        guard let blob = try await self.storage.blobs.blob(id), blob.isVisible(to: caller),
            blob.expiresAt > self.clock.date()
        else {
            throw Self.unknown(id)
        }
        return blob
    }

    private static func unknown(_ id: BlobID) -> WotsError {
        WotsError(.unknownBlob, "no blob \(id) for this account")
    }

    private static func id(_ context: RelayRequestContext) throws -> BlobID {
        try BlobID(context.parameters.require("id"))
    }

    private static func offsetHeaders(_ blob: StoredBlob) -> HTTPFields {
        var headers = HTTPFields()
        headers[.uploadOffset] = String(blob.received)
        headers[.uploadLength] = String(blob.size)
        return headers
    }

    /// The bytes a `Range` header asks for: `bytes=A-` or `bytes=A-B`, one range; the whole blob without one.
    static func range(_ header: String?, size: Int64) throws -> Range<Int64> {
        guard let header else { return 0..<size }
        let spec = header.trimmingCharacters(in: .whitespaces)
        guard spec.hasPrefix("bytes="), !spec.contains(",") else {
            throw WotsError(.invalidArgument, "Range must be bytes=START- or bytes=START-END")
        }
        let parts = spec.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int64(parts[0]), start >= 0 else {
            throw WotsError(.invalidArgument, "Range must be bytes=START- or bytes=START-END")
        }
        var end = size
        if !parts[1].isEmpty {
            guard let last = Int64(parts[1]), last >= start else {
                throw WotsError(.invalidArgument, "Range must be bytes=START- or bytes=START-END")
            }
            end = min(size, last + 1)
        }
        guard start < size else {
            throw WotsError(.invalidArgument, "Range starts at \(start), past the blob's \(size) bytes")
        }
        return start..<end
    }
}

extension HTTPField.Name {
    static let uploadOffset = HTTPField.Name("Upload-Offset")!
    static let uploadLength = HTTPField.Name("Upload-Length")!
}
