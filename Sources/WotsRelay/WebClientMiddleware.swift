import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Serves the browser client's files for `GET` and `HEAD` of `/` and their exact paths; every other request goes on
/// to the API routes untouched.
///
/// Every file comes with a strict Content-Security-Policy (scripts only from this origin, so no inline script runs;
/// connections only to this origin over HTTP(S) and WebSocket; decrypted images as `blob:` URLs), `nosniff`, no
/// framing and no referrer, and `Cache-Control: no-cache` with its content-hash ETag (see `WebClient`).
struct WebClientMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let host = HTTPField.Name("Host")!

    let client: WebClient

    func handle(
        _ request: Request,
        context: RelayRequestContext,
        next: (Request, RelayRequestContext) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head, let file = self.client.file(at: request.uri.path)
        else { return try await next(request, context) }
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .eTag: file.entityTag,
            .cacheControl: "no-cache",
            Self.contentSecurityPolicy: Self.policy(host: request.head.authority ?? request.headers[Self.host]),
            Self.contentTypeOptions: "nosniff",
            Self.frameOptions: "DENY",
            Self.referrerPolicy: "no-referrer",
        ]
        let revalidated = request.headers[values: .ifNoneMatch].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == file.entityTag }
        }
        if revalidated {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(file.body.count)
        let body = request.method == .head ? ByteBuffer() : ByteBuffer(bytes: file.body)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// CSP Level 3 lets `'self'` match `ws:`/`wss:` of the same host; browsers that predate it get the WebSocket
    /// origin named too, from the request's own Host when it is a plain host[:port].
    static func policy(host: String?) -> String {
        var connect = "'self'"
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]".utf8)
        if let host, !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy(allowed.contains) {
            connect += " ws://\(host) wss://\(host)"
        }
        return [
            "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob:",
            "connect-src \(connect)", "worker-src 'self'", "object-src 'none'", "base-uri 'none'",
            "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }
}
