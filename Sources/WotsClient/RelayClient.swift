public import AsyncHTTPClient
public import Foundation
import Logging
import NIOCore
import NIOHTTP1
public import WotsCore
public import WotsCrypto

/// The relay's HTTP JSON API (v1), one method per route.
///
/// Refusals become `WotsError` with the relay's code and message; a relay that cannot be reached becomes
/// `WotsError.relayUnreachable` naming its URL. Authenticated routes log in on first use (challenge, signed with the
/// identity's signing key, then a bearer session) and keep the session for the life of the client; an expired
/// session is renewed once, transparently.
public actor RelayClient {
    /// The relay's base URL without a trailing slash, e.g. `http://127.0.0.1:8080`.
    public nonisolated let baseURL: String
    /// Per-request time limit. Default 30 seconds.
    public nonisolated let timeout: Duration
    /// The certificate authorities an `https://` relay may be signed by; its stream (`wss://`) uses the same.
    public nonisolated let trust: RelayTrust

    let http: HTTPClient
    /// Set once an https:// relay answered over TLS: from then on no request watches for a plain-HTTP relay.
    private var answeredOverTLS = false
    private var credentials: (token: Token, identity: IdentityKeys, nickname: Nickname?)?
    /// The relay id pinned at registration: a relay that answers a challenge with another id is refused.
    private var pinnedRelayID: [UInt8]?
    /// Told the relay's id when a challenge arrives with nothing pinned yet (trust on first use); it is pinned then.
    private var pinning: (@Sendable ([UInt8]) -> Void)?
    private var session: String?

    /// The process-wide HTTP client: a refused connection fails at once (the default client retries until the request
    /// deadline, so "relay unreachable" would take 30 seconds); connecting may take 10 seconds. Never shut down: it
    /// lives as long as the process, like `HTTPClient.shared`.
    public static let sharedHTTPClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: httpClientConfiguration
    )

    static var httpClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return configuration
    }

    /// Largest answer read, in bytes: a directory page of 100 entries or a mailbox page fits easily.
    static let maximumResponseSize = 16 << 20

    /// - Parameters:
    ///   - baseURL: `http://` or `https://` URL of the relay.
    ///   - timeout: per-request limit. Default 30 seconds.
    ///   - trust: the certificate authorities of an `https://` relay. Default the system's.
    ///   - httpClient: default the trust's process-wide client, which fails fast when the relay refuses connections.
    /// - Throws: `WotsError.invalidInput` when the URL is not an http(s) URL.
    public init(
        baseURL: String,
        timeout: Duration = .seconds(30),
        trust: RelayTrust = .system,
        httpClient: HTTPClient? = nil
    )
        throws
    {
        self.baseURL = try Self.normalize(baseURL)
        self.timeout = timeout
        self.trust = trust
        self.http = httpClient ?? trust.sharedHTTPClient
    }

    /// Checks and normalizes a relay URL: scheme http or https, a host, no query; the trailing slash removed.
    public static func normalize(_ text: String) throws -> String {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.query == nil, components.fragment == nil
        else {
            throw WotsError(.invalidInput, "relay URL \"\(text.prefix(100))\" is not an http:// or https:// URL")
        }
        var normalized = text
        while normalized.hasSuffix("/") { normalized.removeLast() }
        return normalized
    }

    /// Uses this identity for authenticated routes from now on.
    /// - Parameters:
    ///   - nickname: the account's nickname, named in the hints of login failures. Default none.
    ///   - relayID: the relay id pinned for the account; every challenge must carry it. Default none (not pinned).
    ///   - pinning: with no `relayID`, told the id of the first challenge, which is pinned from then on.
    public func authenticate(
        as token: Token,
        identity: IdentityKeys,
        nickname: Nickname? = nil,
        relayID: [UInt8]? = nil,
        pinning: (@Sendable ([UInt8]) -> Void)? = nil
    ) {
        if self.credentials?.token != token || self.credentials?.identity.fingerprint != identity.fingerprint {
            self.session = nil
        }
        self.credentials = (token, identity, nickname)
        self.pinnedRelayID = relayID
        self.pinning = pinning
    }

    // MARK: Routes

    /// `POST /v1/register`.
    public func register(_ request: RegistrationRequest) async throws -> DirectoryEntry {
        try await self.call(.POST, "/v1/register", body: request)
    }

    /// `GET /v1/directory?limit=…&after=…`.
    public func directoryPage(limit: Int, after cursor: String?) async throws -> DirectoryPageResponse {
        var query = "limit=\(limit)"
        if let cursor {
            query += "&after=" + (cursor.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? cursor)
        }
        return try await self.call(.GET, "/v1/directory?\(query)")
    }

    /// `GET /v1/directory/{nickname}`.
    /// - Throws: `WotsError.unknownNickname` when nobody has that nickname.
    public func entry(nickname: Nickname) async throws -> DirectoryEntry {
        do {
            return try await self.call(.GET, "/v1/directory/\(nickname.value)")
        } catch let error as WotsError where error.code == .unknownNickname {
            throw WotsError(
                .unknownNickname,
                "nobody is registered as \"\(nickname)\" at \(self.baseURL)"
            )
        }
    }

    /// `GET /v1/directory/token/{token}`: the entry of a message's sender.
    public func entry(token: Token) async throws -> DirectoryEntry {
        try await self.call(.GET, "/v1/directory/token/\(token)")
    }

    /// `POST /v1/messages` (authenticated).
    public func send(_ envelope: Envelope) async throws -> SendReceipt {
        try await self.call(.POST, "/v1/messages", body: envelope, authenticated: true)
    }

    /// `GET /v1/messages?after=…&limit=…` (authenticated).
    public func mailbox(after sequence: Int64, limit: Int) async throws -> MailboxResponse {
        try await self.call(.GET, "/v1/messages?after=\(sequence)&limit=\(limit)", authenticated: true)
    }

    /// `POST /v1/messages/ack` (authenticated).
    @discardableResult
    public func acknowledge(_ keys: [MessageKey]) async throws -> AcknowledgeResponse {
        try await self.call(.POST, "/v1/messages/ack", body: AcknowledgeRequest(messages: keys), authenticated: true)
    }

    /// Most notices one `GET /v1/notices` returns.
    public static let maximumNoticeFetch = 500

    /// `GET /v1/notices?limit=…` (authenticated): what became of messages this account sent.
    public func notices(limit: Int) async throws -> NoticesResponse {
        try await self.call(.GET, "/v1/notices?limit=\(limit)", authenticated: true)
    }

    /// `POST /v1/notices/ack` (authenticated): deletes these notices at the relay.
    @discardableResult
    public func clearNotices(_ ids: [UUID]) async throws -> ClearNoticesResponse {
        try await self.call(.POST, "/v1/notices/ack", body: ClearNoticesRequest(notices: ids), authenticated: true)
    }

    /// `GET /v1/relay`: the relay's permanent id.
    public func relayID() async throws -> [UInt8] {
        let identity: RelayIdentity = try await self.call(.GET, "/v1/relay")
        guard let id = Data(base64Encoded: identity.relayID), !id.isEmpty else {
            throw WotsError(.invalidResponse, "\(self.baseURL) sent a relay id that is not base64")
        }
        return Array(id)
    }

    /// `POST /v1/auth/challenge`: a single-use nonce and the relay's id, checked against the pinned id.
    /// - Throws: `WotsError.relayChanged` when the relay's id is not the pinned one.
    public func challenge() async throws -> (nonce: [UInt8], relayID: [UInt8]) {
        let challenge: ChallengeResponse = try await self.call(.POST, "/v1/auth/challenge")
        guard let nonce = Data(base64Encoded: challenge.nonce), let relayID = Data(base64Encoded: challenge.relayID),
            !nonce.isEmpty, !relayID.isEmpty
        else {
            throw WotsError(.invalidResponse, "\(self.baseURL) sent a challenge that is not base64")
        }
        guard let pinned = self.pinnedRelayID else {
            if let pinning = self.pinning {
                self.pinnedRelayID = Array(relayID)
                self.pinning = nil
                pinning(Array(relayID))
            }
            return (Array(nonce), Array(relayID))
        }
        if pinned != Array(relayID) {
            throw WotsError(
                .relayChanged,
                "\(self.baseURL) is not the relay this account was registered at (its id changed from "
                    + "\(Hex.encode(pinned.prefix(8))) to \(Hex.encode(relayID.prefix(8)))); refusing to log in. If the "
                    + "operator really moved the relay, restore the account from it into a new --home"
            )
        }
        return (Array(nonce), Array(relayID))
    }

    /// `POST /v1/restore/parameters`.
    public func restoreParameters(nickname: Nickname) async throws -> RestoreParametersResponse {
        do {
            return try await self.call(
                .POST,
                "/v1/restore/parameters",
                body: RestoreParametersRequest(nickname: nickname)
            )
        } catch let error as WotsError where error.code == .unknownNickname {
            throw WotsError(
                .unknownNickname,
                "nobody is registered as \"\(nickname)\" at \(self.baseURL)"
            )
        }
    }

    /// `POST /v1/restore`: a fresh challenge signed with the restore key.
    /// - Returns: the account and the id of the relay that answered.
    public func restore(nickname: Nickname, keys: SecretKeys) async throws -> (AccountResponse, relayID: [UInt8]) {
        let (nonce, relayID) = try await self.challenge()
        let signature = try keys.signRestore(relayID: relayID, nonce: nonce, nickname: nickname)
        let body = RestoreRequest(
            nickname: nickname,
            nonce: Data(nonce).base64EncodedString(),
            signature: Data(signature).base64EncodedString()
        )
        do {
            return (try await self.call(.POST, "/v1/restore", body: body), relayID)
        } catch let error as WotsError where error.code == .wrongSecret {
            // The relay's own reason says the same; one line says it once.
            throw WotsError(.wrongSecret, "wrong secret for \(nickname)")
        }
    }

    /// `POST /v1/keys/rotate` (authenticated with the current keys).
    public func rotate(_ request: RotationRequest) async throws -> DirectoryEntry {
        try await self.call(.POST, "/v1/keys/rotate", body: request, authenticated: true)
    }

    /// `POST /v1/account/delete` (authenticated), with a fresh deletion statement signed by the identity.
    public func deleteAccount() async throws {
        guard let credentials else {
            throw WotsError(.invalidSession, "no identity to delete an account at \(self.baseURL) with")
        }
        let (nonce, relayID) = try await self.challenge()
        let signature = try credentials.identity.signDeletion(relayID: relayID, nonce: nonce, token: credentials.token)
        let body = DeletionRequest(
            nonce: Data(nonce).base64EncodedString(),
            signature: Data(signature).base64EncodedString()
        )
        let _: Empty = try await self.call(.POST, "/v1/account/delete", body: body, authenticated: true)
    }

    // MARK: Session

    /// A bearer session for the identity given to `authenticate(as:identity:)`, logging in when there is none.
    public func currentSession() async throws -> String {
        if let session { return session }
        guard let credentials else {
            throw WotsError(.invalidSession, "no identity to log in to \(self.baseURL) with")
        }
        let (nonce, relayID) = try await self.challenge()
        let signature = try credentials.identity.signAuthentication(
            relayID: relayID,
            nonce: nonce,
            token: credentials.token
        )
        let request = SessionRequest(
            token: credentials.token,
            nonce: Data(nonce).base64EncodedString(),
            signature: Data(signature).base64EncodedString()
        )
        let response: SessionResponse
        do {
            response = try await self.call(.POST, "/v1/auth/session", body: request)
        } catch let error as WotsError where [.unknownToken, .badSignature, .challengeInvalid].contains(error.code) {
            throw self.loginRefusal(error, token: credentials.token, nickname: credentials.nickname)
        }
        self.session = response.session
        return response.session
    }

    /// Forgets the session, so the next authenticated call logs in again.
    public func invalidateSession() { self.session = nil }

    // MARK: Transport

    struct Empty: Decodable {}
    struct NoBody: Encodable {}

    func call<Response: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        authenticated: Bool = false
    ) async throws -> Response {
        try await self.call(method, path, body: Optional<NoBody>.none, authenticated: authenticated)
    }

    func call<Response: Decodable, Body: Encodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: Body?,
        authenticated: Bool = false
    ) async throws -> Response {
        var encoded: [UInt8]?
        if let body {
            do {
                encoded = Array(try WireCoding.makeEncoder().encode(body))
            } catch {
                throw WotsError(.invalidInput, "cannot encode the request for \(path): \(error)")
            }
        }
        var retriedLogin = false
        while true {
            var request = HTTPClientRequest(url: self.baseURL + path)
            request.method = method
            request.headers.add(name: "Accept", value: "application/json")
            request.headers.add(name: "User-Agent", value: "wots-cli/1")
            if let encoded {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(encoded)
            } else if method == .POST {
                request.body = .bytes([UInt8]())
            }
            if authenticated {
                request.headers.add(name: "Authorization", value: "Bearer \(try await self.currentSession())")
            }
            let (status, headers, bytes) = try await self.perform(request, method: method, path: path)
            if authenticated, status == 401, !retriedLogin {
                retriedLogin = true
                self.session = nil
                continue
            }
            guard (200..<300).contains(status) else {
                throw self.refusal(status: status, headers: headers, bytes: bytes, method: method, path: path)
            }
            if Response.self == Empty.self, let empty = Empty() as? Response { return empty }
            do {
                return try WireCoding.makeDecoder().decode(Response.self, from: Data(bytes))
            } catch {
                throw WotsError(
                    .invalidResponse,
                    "\(self.baseURL) answered \(method) \(Self.route(path)) with something that is not the API: \(error)"
                )
            }
        }
    }

    func perform(
        _ request: HTTPClientRequest,
        method: HTTPMethod,
        path: String
    ) async throws -> Answer {
        let watch = self.isHTTPS && !self.answeredOverTLS
        do {
            guard watch else { return try await self.execute(request) }
            let answer = try await self.executeWatchingForPlainHTTP(request)
            self.answeredOverTLS = true
            return answer
        } catch let error as WotsError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if watch, await self.speaksPlainHTTP() { throw self.plainHTTPRefusal() }
            if Self.isUntrustedCertificate(error) { throw self.untrustedCertificateRefusal() }
            throw WotsError(.relayUnreachable, "relay unreachable at \(self.baseURL) (\(Self.describe(error)))")
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension CharacterSet {
    static let urlQueryValueAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: "&+=?#")
        return set
    }()
}
