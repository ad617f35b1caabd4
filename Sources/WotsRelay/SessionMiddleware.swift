import Foundation
import HTTPTypes
import Hummingbird
import WotsCore

/// Requires `Authorization: Bearer SESSION` and puts the session's token in the context.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    let authenticator: Authenticator

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let session = Self.bearer(in: request.headers) else {
            throw WotsError(.unauthenticated, "this endpoint needs an Authorization: Bearer session")
        }
        var context = context
        context.authenticatedToken = try await self.authenticator.token(forSession: session)
        return try await next(request, context)
    }

    static func bearer(in headers: HTTPFields) -> String? {
        guard let value = headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }
}
