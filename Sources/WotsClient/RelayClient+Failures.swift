import AsyncHTTPClient
import Foundation
import NIOHTTP1
import WotsCore

/// How the relay client turns refusals and transport failures into one clear line each.
extension RelayClient {
    /// A refusal as the relay worded it, with when to retry if the relay said so in a header but not in words.
    nonisolated func refusal(status: Int, headers: HTTPHeaders, bytes: [UInt8], method: HTTPMethod, path: String)
        -> WotsError
    {
        let retryAfter = headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let body = try? WireCoding.makeDecoder().decode(APIErrorBody.self, from: Data(bytes)) {
            let message = Self.printable(body.error.message)
            // Relays say when to retry in their own words ("retry in 29 s"); saying it twice helps no one.
            let retry = retryAfter.map {
                message.localizedCaseInsensitiveContains("retry") ? "" : " (retry after \($0) s)"
            }
            return WotsError(body.error.code, message + (retry ?? ""), retryAfterSeconds: retryAfter)
        }
        let retry = retryAfter.map { " (retry after \($0) s)" } ?? ""
        return WotsError(
            .invalidResponse,
            "\(self.baseURL) answered \(method) \(Self.route(path)) with HTTP \(status)\(retry)",
            retryAfterSeconds: retryAfter
        )
    }

    /// A refused login, with the next step when there is one.
    nonisolated func loginRefusal(_ error: WotsError, token: Token, nickname: Nickname?) -> WotsError {
        let account = nickname.map { "\($0)" } ?? "token \(token)"
        switch error.code {
        case .badSignature:
            return WotsError(
                .badSignature,
                "\(self.baseURL) does not accept this machine's keys for \(account): they were replaced, probably by "
                    + "`wots rotate` on another machine; run `wots restore --nick \(nickname.map { "\($0)" } ?? "NAME")` "
                    + "to fetch the current ones"
            )
        case .unknownToken:
            return WotsError(
                .unknownToken,
                "\(self.baseURL) has no account \(account) (token \(token)): it was deleted, or it lives at another "
                    + "relay (--relay)"
            )
        default:
            return WotsError(error.code, "\(self.baseURL) refused to log in \(account): \(error.reason)")
        }
    }

    /// The path without its query, for messages.
    static func route(_ path: String) -> String { String(path.prefix { $0 != "?" }) }

    /// Relay text shown to the user without control characters (no terminal escapes from a hostile relay).
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(500).map { $0.properties.generalCategory == .control ? "?" : $0 }
            )
        )
    }

    /// An `https://` relay whose certificate did not verify: the problem and, for a private CA, the fix.
    nonisolated func untrustedCertificateRefusal() -> WotsError {
        let host = URLComponents(string: self.baseURL)?.host ?? self.baseURL
        let trusted = self.trust.caFile.map { "the system's certificate authorities nor \($0)" }
        return WotsError(
            .relayUnreachable,
            "relay unreachable at \(self.baseURL): its TLS certificate is not trusted here (not signed by "
                + (trusted ?? "a certificate authority this system trusts")
                + ", or not issued for \(host)); for a relay with a private CA, pass --ca-file FILE "
                + "(or set WOTS_CA_FILE) with that CA's PEM certificate"
        )
    }

    static func isUntrustedCertificate(_ error: any Error) -> Bool {
        let text = String(describing: error)
        return text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("failedToValidateHostname")
    }

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("deadlineExceeded") { return "timed out" }
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("remoteConnectionClosed") { return "the connection closed before an answer" }
        if text.contains("CERTIFICATE_VERIFY_FAILED") { return "its TLS certificate is not trusted here" }
        return text.count > 160 ? String(text.prefix(160)) + "…" : text
    }
}
