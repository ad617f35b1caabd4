public import Hummingbird
import NIOCore
public import WotsCore

/// Per-request state: the authenticated token once `SessionMiddleware` has checked the bearer session, and the
/// client's address for per-address rate limits.
public struct RelayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `SessionMiddleware`; nil on public routes.
    public var authenticatedToken: Token?
    /// The client's IP address: the peer's, or the one a trusted proxy forwarded (`ClientAddressMiddleware`);
    /// "unknown" when there is none.
    public internal(set) var remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The authenticated token; throws 401 when the route was reached without a session.
    func requireToken() throws -> Token {
        guard let token = self.authenticatedToken else {
            throw WotsError(.unauthenticated, "this endpoint needs an Authorization: Bearer session")
        }
        return token
    }
}
