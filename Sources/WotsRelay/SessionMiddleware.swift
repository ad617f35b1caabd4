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

    /// What follows `Bearer ` (any case) in the Authorization header, without the spaces and tabs around it; read as
    /// bytes, since Foundation's lowercasing and trimming were 3 % of the relay's CPU per stored message.
    static func bearer(in headers: HTTPFields) -> String? {
        guard let value = headers[.authorization] else { return nil }
        let scheme = "bearer ".utf8
        let bytes = value.utf8
        guard bytes.starts(with: scheme, by: { $0 == $1 || ($1 != UInt8(ascii: " ") && $0 | 0x20 == $1) }) else {
            return nil
        }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var credentials = bytes.dropFirst(scheme.count)
        while let first = credentials.first, isBlank(first) { credentials = credentials.dropFirst() }
        while let last = credentials.last, isBlank(last) { credentials = credentials.dropLast() }
        return String(decoding: credentials, as: UTF8.self)
    }
}
