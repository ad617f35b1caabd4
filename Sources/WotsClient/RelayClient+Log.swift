import AsyncHTTPClient
import Foundation
import NIOHTTP1
public import WotsCore

/// The transparency log's endpoints (SECURITY.md, "Key transparency log").
extension RelayClient {
    /// `GET /v1/relay`: the relay id and the log's verifier key.
    public func identity() async throws -> RelayIdentity {
        try await self.call(.GET, "/v1/relay")
    }

    /// `GET /v1/directory/{nickname}` with the entry's place in the log.
    /// - Throws: `WotsError.unknownNickname` when nobody has that nickname.
    public func lookup(nickname: Nickname) async throws -> DirectoryLookup {
        do {
            return try await self.call(.GET, "/v1/directory/\(nickname.value)")
        } catch let error as WotsError where error.code == .unknownNickname {
            throw WotsError(.unknownNickname, "nobody is registered as \"\(nickname)\" at \(self.baseURL)")
        }
    }

    /// `GET /v1/directory/token/{token}` with the entry's place in the log.
    public func lookup(token: Token) async throws -> DirectoryLookup {
        try await self.call(.GET, "/v1/directory/token/\(token)")
    }

    /// `GET /v1/log/checkpoint`: the signed checkpoint note, as sent.
    public func checkpointNote() async throws -> [UInt8] {
        var request = HTTPClientRequest(url: self.baseURL + "/v1/log/checkpoint")
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "wots-cli/1")
        let (status, headers, bytes) = try await self.perform(request, method: .GET, path: "/v1/log/checkpoint")
        guard status == 200 else {
            throw self.refusal(status: status, headers: headers, bytes: bytes, method: .GET, path: "/v1/log/checkpoint")
        }
        return bytes
    }

    /// `GET /v1/log/entries?start=&end=`: at most 100 leaves.
    public func logEntries(start: UInt64, end: UInt64) async throws -> LogEntriesResponse {
        try await self.call(.GET, "/v1/log/entries?start=\(start)&end=\(end)")
    }

    /// `GET /v1/log/proof/inclusion?index=&size=`.
    public func inclusionProof(index: UInt64, size: UInt64) async throws -> InclusionProofResponse {
        try await self.call(.GET, "/v1/log/proof/inclusion?index=\(index)&size=\(size)")
    }

    /// `GET /v1/log/proof/consistency?from=&to=`.
    public func consistencyProof(from: UInt64, to: UInt64) async throws -> ConsistencyProofResponse {
        try await self.call(.GET, "/v1/log/proof/consistency?from=\(from)&to=\(to)")
    }
}
