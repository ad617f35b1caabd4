import Foundation
import Hummingbird
import NIOCore
import WotsCore
import WotsStorage
import WotsTransparency

/// `GET /v1/log/…`: the transparency log's checkpoint, proofs and entries, for clients and independent monitors.
struct LogRoutes: Sendable {
    /// Most leaves one `GET /v1/log/entries` returns.
    static let maximumEntries: UInt64 = 100

    let publisher: LogPublisher

    func register(on router: Router<RelayRequestContext>) {
        router.get("/v1/log/checkpoint") { _, _ in
            let note = try await self.publisher.signedCheckpoint().note.serialized
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: note))
            )
        }
        router.get("/v1/log/proof/inclusion") { request, _ in
            let query = request.uri.queryParameters
            let index = try Self.number(query["index"], named: "index")
            let size = try await self.size(query["size"])
            let proof = try await MerkleTree.inclusionProof(
                forLeafAt: index,
                treeSize: size,
                reader: self.publisher.log
            )
            return try JSONBody.response(
                InclusionProofResponse(leafIndex: index, treeSize: size, hashes: proof.hashes.map(\.base64))
            )
        }
        router.get("/v1/log/proof/consistency") { request, _ in
            let query = request.uri.queryParameters
            let from = try Self.number(query["from"], named: "from")
            let to = try await self.size(query["to"], named: "to")
            let proof = try await MerkleTree.consistencyProof(from: from, to: to, reader: self.publisher.log)
            return try JSONBody.response(
                ConsistencyProofResponse(from: from, to: to, hashes: proof.hashes.map(\.base64))
            )
        }
        router.get("/v1/log/entries") { request, _ in
            let query = request.uri.queryParameters
            let start = try Self.number(query["start"], named: "start")
            let end = try Self.number(query["end"], named: "end")
            guard start < end, end - start <= Self.maximumEntries else {
                throw WotsError(
                    .invalidArgument,
                    "entries \(start)..<\(end) are not 1–\(Self.maximumEntries) leaves (start < end ≤ start + 100)"
                )
            }
            let leaves = try await self.publisher.log.leaves(in: start..<end)
            return try JSONBody.response(
                LogEntriesResponse(start: start, entries: leaves.map { Data($0).base64EncodedString() })
            )
        }
    }

    /// A tree size no larger than the log's: `text`, or the current size when absent.
    private func size(_ text: Substring?, named name: String = "size") async throws -> UInt64 {
        let current = try await self.publisher.log.size()
        guard let text else { return current }
        let size = try Self.number(text, named: name)
        guard size <= current else {
            throw WotsError(.proofOutOfRange, "\(name) \(size) is larger than the log (\(current) leaves)")
        }
        return size
    }

    /// A query parameter holding a whole number 0…2^63 − 1.
    static func number(_ text: Substring?, named name: String) throws -> UInt64 {
        guard let text else { throw WotsError(.invalidArgument, "the query parameter \(name) is missing") }
        guard text.utf8.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = UInt64(text),
            value <= UInt64(Int64.max)
        else {
            throw WotsError(.invalidArgument, "\(name) \"\(text.prefix(20))\" is not a whole number 0–2^63 − 1")
        }
        return value
    }
}
