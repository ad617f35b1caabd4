public import HTTPTypes
public import Hummingbird
import WotsCore

/// A refusal as the API shows it: HTTP status, stable code and one human sentence.
public struct RelayError: Error, Sendable, HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var retryAfterSeconds: Int?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(self.code): \(self.message)" }

    public var headers: HTTPFields {
        var headers = HTTPFields()
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        return headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONBody.response(APIErrorBody(code: self.code, message: self.message), status: self.status)
        response.headers.append(contentsOf: self.headers)
        return response
    }
}

extension RelayError {
    static func badRequest(_ code: String, _ message: String) -> RelayError { RelayError(.badRequest, code, message) }
    static func unauthorized(_ code: String, _ message: String) -> RelayError {
        RelayError(.unauthorized, code, message)
    }
    static func notFound(_ code: String, _ message: String) -> RelayError { RelayError(.notFound, code, message) }
    static func tooManyRequests(_ code: String, _ message: String, retryAfter: Int) -> RelayError {
        RelayError(.tooManyRequests, code, message, retryAfterSeconds: retryAfter)
    }
}
