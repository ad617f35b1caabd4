import Hummingbird
import WotsCore

/// `POST /v1/auth/challenge` and `POST /v1/auth/session`.
struct AuthenticationRoutes: Sendable {
    let authenticator: Authenticator
    let configuration: RelayConfiguration

    func register(on router: Router<RelayRequestContext>) {
        router.post("/v1/auth/challenge") { _, _ in
            try JSONBody.response(try await self.authenticator.challenge())
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
