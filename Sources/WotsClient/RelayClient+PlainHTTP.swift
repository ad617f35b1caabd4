import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import WotsCore

/// An `https://` URL pointed at a relay that speaks plain HTTP: the relay waits for a request line it can parse and
/// never answers the TLS handshake, so without a watch the request would hang until the 10-second connect timeout
/// and then say only "timed out".
extension RelayClient {
    /// Status, headers and body of one answer.
    typealias Answer = (status: Int, headers: HTTPHeaders, body: [UInt8])

    /// How long a TLS answer may take before the same address is asked, in plain HTTP, whether it speaks that.
    static let plainHTTPWatchDelay: Duration = .seconds(1)

    nonisolated var isHTTPS: Bool { self.baseURL.lowercased().hasPrefix("https://") }

    /// The base URL with `http://` instead of `https://`.
    nonisolated var plainBaseURL: String { "http://" + self.baseURL.dropFirst("https://".count) }

    nonisolated func execute(_ request: HTTPClientRequest) async throws -> Answer {
        let response = try await self.http.execute(request, timeout: .nanoseconds(self.timeout.nanoseconds))
        let body = try await response.body.collect(upTo: Self.maximumResponseSize)
        return (Int(response.status.code), response.headers, Array(body.readableBytesView))
    }

    /// Runs the request; if no answer came after `plainHTTPWatchDelay`, asks the address in plain HTTP, and fails at
    /// once with `plainHTTPRefusal()` when it answers that way.
    nonisolated func executeWatchingForPlainHTTP(_ request: HTTPClientRequest) async throws -> Answer {
        try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask { try await self.execute(request) }
            group.addTask {
                try await Task.sleep(for: Self.plainHTTPWatchDelay)
                if await self.speaksPlainHTTP() { throw self.plainHTTPRefusal() }
                return nil
            }
            while let finished = try await group.next() {
                if let answer = finished {
                    group.cancelAll()
                    return answer
                }
            }
            throw CancellationError()
        }
    }

    /// Whether the relay's address answers a plain-HTTP request (any status will do); never sends anything secret.
    nonisolated func speaksPlainHTTP() async -> Bool {
        var probe = HTTPClientRequest(url: self.plainBaseURL + "/healthz")
        probe.headers.add(name: "User-Agent", value: "wots-cli/1")
        do {
            let response = try await self.http.execute(probe, timeout: .seconds(2))
            _ = try? await response.body.collect(upTo: 1 << 16)
            return true
        } catch {
            return false
        }
    }

    nonisolated func plainHTTPRefusal() -> WotsError {
        WotsError(
            .relayUnreachable,
            "relay unreachable at \(self.baseURL): this relay speaks http, not https; use --relay \(self.plainBaseURL)"
        )
    }
}
