import Hummingbird
import Logging

/// Turns every error a route throws into the API's JSON error body with the fitting status, counts requests and
/// errors, and logs failures without request bodies.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    let metrics: RelayMetrics

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let route = context.endpointPath ?? "unmatched"
        do {
            let response = try await next(request, context)
            self.metrics.countRequest(route: route, status: response.status.code)
            return response
        } catch {
            let refusal = Refusal(error)
            self.metrics.countRequest(route: context.endpointPath ?? route, status: refusal.status.code)
            self.metrics.countError(code: refusal.code)
            if refusal.isFault {
                context.logger.error("request failed", metadata: ["code": "\(refusal.code)", "error": "\(error)"])
            } else {
                context.logger.debug("request refused", metadata: ["code": "\(refusal.code)"])
            }
            return try refusal.response(from: request, context: context)
        }
    }
}
