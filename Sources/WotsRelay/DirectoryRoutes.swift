import Hummingbird
import WotsCore
import WotsStorage

/// The public directory: paged listing, lookup by nickname and by token.
struct DirectoryRoutes: Sendable {
    let storage: RelayStorage

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
            return try JSONBody.response(entry)
        }
        router.get("/v1/directory/:nickname") { _, context in
            let nickname = try Nickname(naming: context.parameters.require("nickname"))
            guard let entry = try await self.storage.directory.entry(nickname: nickname) else {
                throw WotsError(.unknownNickname, "no account is called \"\(nickname)\"")
            }
            return try JSONBody.response(entry)
        }
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
