import Hummingbird
import WotsCore

/// `GET /v1/relay`, `POST /v1/auth/challenge` and `POST /v1/auth/session`.
struct AuthenticationRoutes: Sendable {
    let authenticator: Authenticator
    /// The transparency log's verifier key, shown beside the relay id.
    let logKey: String
    let configuration: RelayConfiguration
    /// Challenges per client address: each is a database write anyone can ask for.
    let challengeLimiter: TokenBucketLimiter

    func register(on router: Router<RelayRequestContext>) {
        router.get("/v1/relay") { _, _ in
            try JSONBody.response(RelayIdentity(relayID: self.authenticator.relayID.base64, logKey: self.logKey))
        }
        router.post("/v1/auth/challenge") { _, context in
            if let wait = self.challengeLimiter.acquire(context.remoteAddress) {
                throw WotsError(
                    .rateLimited,
                    "too many challenges from this address; retry in \(wait) s",
                    retryAfterSeconds: wait
                )
            }
            return try JSONBody.response(self.authenticator.challenge())
        }
        router.post("/v1/auth/session") { request, _ in
            let body = try await JSONBody.decode(SessionRequest.self, from: request, limit: 16_384)
            do {
                return try JSONBody.response(try await self.authenticator.openSession(body))
            } catch let error as WotsError where [.badSignature, .unknownToken].contains(error.code) {
                // Whoever cannot prove who they are is unauthorized, whatever the reason.
                throw Refusal(error).answered(with: .unauthorized)
            }
        }
    }
}
