import HTTPTypes
import Hummingbird
import Logging
import WotsCore
import WotsCrypto
import WotsStorage

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
            let relayError = Self.relayError(for: error)
            self.metrics.countRequest(route: context.endpointPath ?? route, status: relayError.status.code)
            self.metrics.countError(code: relayError.code)
            if relayError.status.code >= 500 {
                context.logger.error("request failed", metadata: ["code": "\(relayError.code)", "error": "\(error)"])
            } else {
                context.logger.debug("request refused", metadata: ["code": "\(relayError.code)"])
            }
            return try relayError.response(from: request, context: context)
        }
    }

    static func relayError(for error: any Error) -> RelayError {
        switch error {
        case let error as RelayError:
            return error
        case let error as StorageError:
            return Self.relayError(for: error)
        case let error as DomainError:
            return .badRequest(error.code.description, error.reason)
        case let error as CryptoError:
            return .badRequest(error.code.description, error.reason)
        case let error as HTTPError:
            return RelayError(error.status, Self.code(for: error.status), error.body ?? error.status.reasonPhrase)
        case let error as any HTTPResponseError:
            return RelayError(error.status, Self.code(for: error.status), error.status.reasonPhrase)
        default:
            return RelayError(.internalServerError, "internal_error", "the relay failed to handle the request")
        }
    }

    static func relayError(for error: StorageError) -> RelayError {
        switch error.code {
        case .nicknameTaken: RelayError(.conflict, "nickname_taken", error.reason)
        case .tokenTaken: RelayError(.conflict, "token_taken", error.reason)
        case .messageIDConflict: RelayError(.conflict, "message_id_conflict", error.reason)
        case .mailboxFull: .tooManyRequests("mailbox_full", error.reason, retryAfter: 60)
        case .notFound: .notFound("not_found", error.reason)
        case .invalidArgument: .badRequest("invalid_argument", error.reason)
        default: RelayError(.serviceUnavailable, "storage_unavailable", "the relay's database is unavailable")
        }
    }

    private static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 413: "request_too_large"
        case 400..<500: "bad_request"
        default: "internal_error"
        }
    }
}
