import Foundation
import Hummingbird
import WotsCore
import WotsStorage
import WotsTransparency

/// The public directory: paged listing, lookup by nickname and by token. A lookup carries the entry's newest log
/// leaf and its inclusion proof against a signed checkpoint.
struct DirectoryRoutes: Sendable {
    let storage: RelayStorage
    let publisher: LogPublisher

    func register(on router: Router<RelayRequestContext>) {
        router.get("/v1/directory") { request, _ in
            let query = request.uri.queryParameters
            let limit = try Self.limit(from: query["limit"].map(String.init))
            let cursor = try query["after"].map { try Cursor(String($0)) }
            let page = try await self.storage.directory.page(limit: limit, after: cursor)
            return try JSONBody.response(DirectoryPageResponse(entries: page.entries, next: page.next?.description))
        }
        router.get("/v1/directory/token/:token") { _, context in
            let token = try Token(context.parameters.require("token"))
            guard let entry = try await self.storage.directory.entry(token: token) else {
                throw WotsError(.unknownToken, "no account has token \(token)")
            }
            return try JSONBody.response(
                try await self.lookup(entry) { try await self.storage.directory.entry(token: token) }
            )
        }
        router.get("/v1/directory/:nickname") { _, context in
            let nickname = try Nickname(naming: context.parameters.require("nickname"))
            guard let entry = try await self.storage.directory.entry(nickname: nickname) else {
                throw WotsError(.unknownNickname, "no account is called \"\(nickname)\"")
            }
            let lookup = try await self.lookup(entry) { try await self.storage.directory.entry(nickname: nickname) }
            return try JSONBody.response(lookup)
        }
    }

    /// `entry` with its newest log leaf. The entry and the leaf are two reads: when a rotation landed between them
    /// (the leaf's keys are not the entry's), the entry is read again once, so the answer agrees with its proof.
    private func lookup(_ entry: DirectoryEntry, reread: () async throws -> DirectoryEntry?) async throws
        -> DirectoryLookup
    {
        guard let inclusion = try await self.publisher.inclusion(of: entry.token) else {
            return DirectoryLookup(entry: entry, log: nil)
        }
        let leaf = try DirectoryLogEvent(leafBytes: Array(Data(base64Encoded: inclusion.leaf) ?? Data()))
        if leaf.publicKeys != entry.publicKeys, let fresh = try await reread(), fresh.publicKeys == leaf.publicKeys {
            return DirectoryLookup(entry: fresh, log: inclusion)
        }
        return DirectoryLookup(entry: entry, log: inclusion)
    }

    static func limit(from text: String?) throws -> PageLimit {
        guard let text else { return .max }
        guard let value = Int(text) else {
            throw WotsError(
                .invalidPageLimit,
                "limit \"\(text.prefix(20))\" is not a whole number (1–\(PageLimit.maximum))"
            )
        }
        return try PageLimit(value)
    }
}
