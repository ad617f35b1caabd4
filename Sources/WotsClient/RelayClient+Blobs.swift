import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
public import WotsCore

/// Told how many bytes of how many are transferred, after each piece.
public typealias TransferProgress = @Sendable (_ done: Int64, _ total: Int64) -> Void

extension RelayClient {
    /// Bytes one upload request carries: the relay stores each as one chunk row.
    public static let uploadChunkSize = 1 << 20
    /// Attempts after an upload or download is cut off before giving up.
    static let transferRetries = 5

    /// `POST /v1/blobs` (authenticated): announces `size` encrypted bytes for these recipients, to be deleted at
    /// `expiresAt` at the latest (the expiry of the disappearing message that carries it).
    public func createBlob(size: Int64, recipients: [Token], expiresAt: Date? = nil) async throws -> BlobStatus {
        try await self.call(
            .POST,
            "/v1/blobs",
            body: CreateBlobRequest(size: size, recipients: recipients, expiresAt: expiresAt),
            authenticated: true
        )
    }

    /// `HEAD /v1/blobs/{id}` (authenticated): the bytes the relay holds and the blob's size.
    public func blobOffset(_ id: BlobID) async throws -> (offset: Int64, length: Int64) {
        let answer = try await self.blobRequest(.HEAD, id: id)
        guard (200..<300).contains(answer.status) else {
            throw WotsError(answer.status == 404 ? .unknownBlob : .invalidResponse, "no blob \(id) at \(self.baseURL)")
        }
        guard let offset = Self.integer(answer.headers, "Upload-Offset"),
            let length = Self.integer(answer.headers, "Upload-Length")
        else {
            throw WotsError(.invalidResponse, "\(self.baseURL) answered HEAD of blob \(id) without its offset")
        }
        return (offset, length)
    }

    /// Uploads the encrypted file at `path` to blob `id`, from the offset the relay holds: a cut-off upload is resumed
    /// from what the relay stored (asked with HEAD), up to `transferRetries` times.
    public func uploadBlob(_ id: BlobID, from path: String, progress: TransferProgress? = nil) async throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw WotsError(.invalidInput, "\(path) cannot be read")
        }
        defer { try? file.close() }
        var (offset, length) = try await self.blobOffset(id)
        var failures = 0
        while offset < length {
            do {
                try file.seek(toOffset: UInt64(offset))
                let count = Int(min(Int64(Self.uploadChunkSize), length - offset))
                let bytes = try file.read(upToCount: count) ?? Data()
                guard bytes.count == count else {
                    throw WotsError(.invalidInput, "\(path) is shorter than the blob's \(length) bytes")
                }
                offset = try await self.uploadChunk(Array(bytes), to: id, at: offset)
                failures = 0
                progress?(offset, length)
            } catch let error as WotsError where Self.isResumable(error) && failures < Self.transferRetries {
                failures += 1
                offset = try await self.blobOffset(id).offset
            }
        }
    }

    /// `PATCH /v1/blobs/{id}` (authenticated) with one chunk at `offset`.
    /// - Returns: the relay's new offset.
    /// - Throws: `blob_offset_mismatch` when the relay holds a different offset.
    public func uploadChunk(_ bytes: [UInt8], to id: BlobID, at offset: Int64) async throws -> Int64 {
        let answer = try await self.blobRequest(
            .PATCH,
            id: id,
            headers: [("Upload-Offset", String(offset)), ("Content-Type", "application/octet-stream")],
            body: bytes
        )
        guard (200..<300).contains(answer.status) else {
            throw self.refusal(
                status: answer.status,
                headers: answer.headers,
                bytes: answer.body,
                method: .PATCH,
                path: "/v1/blobs/\(id)"
            )
        }
        guard let next = Self.integer(answer.headers, "Upload-Offset") else {
            throw WotsError(.invalidResponse, "\(self.baseURL) accepted a chunk of blob \(id) without its new offset")
        }
        return next
    }

    /// Downloads blob `id` to `path`, resuming with `Range` from what `path` already holds (after a cut, or from an
    /// earlier run), up to `transferRetries` times.
    /// - Parameter size: the blob's size the message announced: a longer answer is refused.
    public func downloadBlob(_ id: BlobID, to path: String, size: Int64, progress: TransferProgress? = nil)
        async throws
    {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            else { throw WotsError(.invalidInput, "\(path) cannot be created") }
        }
        guard let file = FileHandle(forWritingAtPath: path) else {
            throw WotsError(.invalidInput, "\(path) cannot be written")
        }
        defer { try? file.close() }
        var failures = 0
        while true {
            let have = Int64(try file.seekToEnd())
            guard have < size else {
                if have > size { throw WotsError(.attachmentCorrupt, "blob \(id) is longer than its \(size) bytes") }
                return
            }
            do {
                try await self.downloadRange(id, from: have, size: size, into: file, progress: progress)
            } catch let error as WotsError where Self.isResumable(error) && failures < Self.transferRetries {
                failures += 1
            }
        }
    }

    /// `POST /v1/blobs/{id}/ack` (authenticated): this account has the blob.
    /// - Returns: whether the relay deleted it (every recipient has it now).
    @discardableResult
    public func acknowledgeBlob(_ id: BlobID) async throws -> Bool {
        let answer: BlobAcknowledgement = try await self.call(
            .POST,
            "/v1/blobs/\(id)/ack",
            body: Optional<NoBody>.none,
            authenticated: true
        )
        return answer.deleted
    }

    private func downloadRange(
        _ id: BlobID,
        from start: Int64,
        size: Int64,
        into file: FileHandle,
        progress: TransferProgress?
    ) async throws {
        let path = "/v1/blobs/\(id)"
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "wots-cli/1")
        request.headers.add(name: "Authorization", value: "Bearer \(try await self.currentSession())")
        if start > 0 { request.headers.add(name: "Range", value: "bytes=\(start)-") }
        let response: HTTPClientResponse
        do {
            response = try await self.http.execute(request, timeout: .hours(1))
        } catch {
            throw WotsError(.relayUnreachable, "relay unreachable at \(self.baseURL) (\(Self.describe(error)))")
        }
        let status = Int(response.status.code)
        guard status == (start > 0 ? 206 : 200) else {
            let body = try await response.body.collect(upTo: 65_536)
            if status == 401 { self.invalidateSession() }
            throw self.refusal(
                status: status,
                headers: response.headers,
                bytes: Array(body.readableBytesView),
                method: .GET,
                path: path
            )
        }
        var done = start
        do {
            for try await piece in response.body {
                done += Int64(piece.readableBytes)
                guard done <= size else {
                    throw WotsError(.attachmentCorrupt, "blob \(id) is longer than \(size) bytes")
                }
                try file.write(contentsOf: Data(piece.readableBytesView))
                progress?(done, size)
            }
        } catch let error as WotsError {
            throw error
        } catch {
            throw WotsError(.relayUnreachable, "the download of blob \(id) was cut off (\(Self.describe(error)))")
        }
    }

    private func blobRequest(
        _ method: HTTPMethod,
        id: BlobID,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> Answer {
        let path = "/v1/blobs/\(id)"
        var retried = false
        while true {
            var request = HTTPClientRequest(url: self.baseURL + path)
            request.method = method
            request.headers.add(name: "User-Agent", value: "wots-cli/1")
            request.headers.add(name: "Authorization", value: "Bearer \(try await self.currentSession())")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(body) }
            let answer = try await self.perform(request, method: method, path: path)
            if answer.status == 401, !retried {
                retried = true
                self.invalidateSession()
                continue
            }
            return answer
        }
    }

    private static func integer(_ headers: HTTPHeaders, _ name: String) -> Int64? {
        headers.first(name: name).flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Failures after which the transfer goes on from where the relay (or the file) is.
    private static func isResumable(_ error: WotsError) -> Bool {
        [.relayUnreachable, .blobOffsetMismatch, .storageUnavailable].contains(error.code)
    }
}
