import HTTPTypes
import Hummingbird

/// Replaces the request context's peer address with the client address `TrustedProxies` reads from
/// `X-Forwarded-For`, so per-address rate limits see clients, not the reverse proxy.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let proxies: TrustedProxies

    func handle(
        _ request: Request,
        context: RelayRequestContext,
        next: (Request, RelayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.remoteAddress = self.proxies.clientAddress(
            peer: context.remoteAddress,
            forwardedFor: request.headers[values: Self.forwardedFor]
        )
        return try await next(request, context)
    }
}
