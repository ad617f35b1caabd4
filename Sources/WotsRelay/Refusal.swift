import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WotsCore

/// A refusal as a client sees it, whatever the transport: status, code, one human sentence, when to retry.
///
/// Every error reaches a client through this type. Codes that describe the relay's own failures (`storage_corrupted`,
/// `crypto_library`, anything unexpected) are answered as `internal_error` with a fixed sentence; the detail goes
/// to the log only.
struct Refusal: Error, Sendable, HTTPResponseError {
    /// Seconds a client waits after a database fault before retrying.
    static let storageRetrySeconds = 2
    /// Seconds a sender waits after `mailbox_full`: the recipient must come online and acknowledge first.
    static let mailboxFullRetrySeconds = 60

    var code: ErrorCode
    var status: HTTPResponse.Status
    var message: String
    var retryAfterSeconds: Int?
    /// The blob's current offset, sent as `Upload-Offset` with `blob_offset_mismatch`.
    var uploadOffset: Int64?
    /// Whether the relay failed (logged as an error) rather than refused the request.
    var isFault: Bool

    init(code: ErrorCode, message: String, retryAfterSeconds: Int? = nil, isFault: Bool) {
        self.code = code
        self.status = code.httpStatus
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.isFault = isFault
    }

    init(_ error: any Error) {
        switch error {
        case let error as Refusal:
            self = error
        case let error as WotsError:
            self.init(error)
        case let error as HTTPError:
            let code = ErrorCode.forStatus(error.status)
            self.init(code: code, message: error.body ?? error.status.reasonPhrase, isFault: error.status.code >= 500)
        case let error as any HTTPResponseError:
            let code = ErrorCode.forStatus(error.status)
            self.init(code: code, message: error.status.reasonPhrase, isFault: error.status.code >= 500)
        default:
            self.init(code: .internalError, message: "the relay failed to handle the request", isFault: true)
        }
    }

    private init(_ error: WotsError) {
        switch error.code.httpStatus.code {
        case 503:
            let retry = error.retryAfterSeconds ?? Self.storageRetrySeconds
            self.init(code: error.code, message: error.reason, retryAfterSeconds: retry, isFault: true)
        case 500...:
            self.init(code: .internalError, message: "the relay failed to handle the request", isFault: true)
        case 429 where error.code == .mailboxFull || error.code == .mailboxQuotaExceeded:
            let retry = error.retryAfterSeconds ?? Self.mailboxFullRetrySeconds
            self.init(code: error.code, message: error.reason, retryAfterSeconds: retry, isFault: false)
        default:
            self.init(
                code: error.code,
                message: error.reason,
                retryAfterSeconds: error.retryAfterSeconds,
                isFault: false
            )
        }
    }

    /// The same refusal answered with another status, for routes where a code means something else (a bad signature
    /// on a login is a 401, on an envelope a 400).
    func answered(with status: HTTPResponse.Status) -> Refusal {
        var refusal = self
        refusal.status = status
        return refusal
    }

    var headers: HTTPFields {
        var headers = HTTPFields()
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        if let uploadOffset { headers[.uploadOffset] = String(uploadOffset) }
        return headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let answer = try self.httpAnswer()
        return Response(status: self.status, headers: answer.headerFields, body: .init(byteBuffer: answer.body))
    }

    /// The headers and the API's JSON error body every HTTP answer to this refusal carries (without `Date` and
    /// `Server`, which the server adds).
    func httpAnswer() throws -> (headerFields: HTTPFields, body: ByteBuffer) {
        let json = try WireCoding.makeEncoder().encode(APIErrorBody(code: self.code, message: self.message))
        var fields = JSONBody.headers(length: json.count)
        fields.append(contentsOf: self.headers)
        return (fields, ByteBuffer(bytes: json))
    }
}
