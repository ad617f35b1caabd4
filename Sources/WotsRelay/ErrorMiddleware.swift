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
            let refusal = Self.record(
                error,
                route: context.endpointPath ?? route,
                metrics: self.metrics,
                logger: context.logger
            )
            return try refusal.response(from: request, context: context)
        }
    }

    /// Counts and logs a request that `error` refused, as every HTTP route's refusal is.
    static func record(_ error: any Error, route: String, metrics: RelayMetrics, logger: Logger) -> Refusal {
        let refusal = Refusal(error)
        metrics.countRequest(route: route, status: refusal.status.code)
        metrics.countError(code: refusal.code)
        if refusal.isFault {
            logger.error("request failed", metadata: ["code": "\(refusal.code)", "error": "\(error)"])
        } else {
            logger.debug("request refused", metadata: ["code": "\(refusal.code)"])
        }
        return refusal
    }
}
