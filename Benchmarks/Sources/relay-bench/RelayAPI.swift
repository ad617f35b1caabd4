import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WotsCore
import WotsCrypto
import WotsTesting

/// A registered account the load generator sends or receives as; `session` is set once it logged in.
struct BenchUser: Sendable {
    let token: Token
    let nickname: Nickname
    let identity: IdentityKeys
    var session: String = ""
}

/// The relay's HTTP API, as far as the benchmarks need it: registration, login and `POST /v1/messages`.
final class RelayAPI: Sendable {
    let base: String
    let wsURL: String
    let http: HTTPClient

    init(base: String, connections: Int) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.wsURL = self.base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/stream"
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await self.http.shutdown() }

    func post(_ path: String, body: ByteBuffer, session: String? = nil) async throws -> (UInt, ByteBuffer) {
        var request = HTTPClientRequest(url: self.base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let session { request.headers.add(name: "Authorization", value: "Bearer \(session)") }
        request.body = .bytes(body)
        let response = try await self.http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        return (response.status.code, bytes)
    }

    func postJSON<T: Encodable>(_ path: String, _ value: T, session: String? = nil) async throws -> (UInt, ByteBuffer) {
        try await self.post(path, body: ByteBuffer(bytes: try WireCoding.makeEncoder().encode(value)), session: session)
    }

    static func makeUser(index: Int, role: String, run: String) throws -> BenchUser {
        let fixture = TestIdentities.all[index % TestIdentities.all.count]
        return BenchUser(
            token: try Token(bytes: SecureRandom.bytes(16)),
            nickname: try Nickname("\(run)-\(role)\(index)"),
            identity: fixture.identity
        )
    }

    /// The relay's id, which every registration proof names (`GET /v1/relay`).
    func relayID() async throws -> [UInt8] {
        let response = try await self.http.execute(
            HTTPClientRequest(url: self.base + "/v1/relay"),
            timeout: .seconds(60)
        )
        let body = try await response.body.collect(upTo: 1 << 16)
        let identity = try WireCoding.makeDecoder().decode(RelayIdentity.self, from: Data(body.readableBytesView))
        guard let id = Data(base64Encoded: identity.relayID) else { throw BenchError("GET /v1/relay: bad base64") }
        return Array(id)
    }

    func register(_ user: BenchUser, relayID: [UInt8]) async throws {
        // One secret for every bench user: its scrypt keys are derived once per process, at the cost relays require.
        let (parameters, keys) = try TestSecretKeys.derived(from: "relay-bench secret")
        let record = try PrivateRecord.seal(
            identity: user.identity,
            token: user.token,
            keys: keys,
            parameters: parameters
        )
        let proof = try RegistrationProof.sign(
            relayID: relayID,
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.identity.publicKeys,
            identity: user.identity
        )
        let request = RegistrationRequest(
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.identity.publicKeys,
            privateRecord: record,
            proof: Data(proof).base64EncodedString()
        )
        let (status, body) = try await self.postJSON("/v1/register", request)
        guard status == 201 else {
            throw BenchError("register \(user.nickname): HTTP \(status) \(String(buffer: body).prefix(200))")
        }
    }

    func login(_ user: BenchUser) async throws -> String {
        var (status, body) = try await self.post("/v1/auth/challenge", body: ByteBuffer())
        // The relay hands out 10 challenges a second per address past a burst of 100; larger runs wait their turn.
        while status == 429 {
            try await Task.sleep(for: .milliseconds(200))
            (status, body) = try await self.post("/v1/auth/challenge", body: ByteBuffer())
        }
        guard status == 200 else { throw BenchError("challenge: HTTP \(status) \(String(buffer: body).prefix(200))") }
        let challenge = try WireCoding.makeDecoder().decode(ChallengeResponse.self, from: Data(body.readableBytesView))
        guard let nonce = Data(base64Encoded: challenge.nonce), let relayID = Data(base64Encoded: challenge.relayID)
        else { throw BenchError("challenge: bad base64") }
        let signature = try user.identity.signAuthentication(
            relayID: Array(relayID),
            nonce: Array(nonce),
            token: user.token
        )
        let (status2, body2) = try await self.postJSON(
            "/v1/auth/session",
            SessionRequest(token: user.token, nonce: challenge.nonce, signature: Data(signature).base64EncodedString())
        )
        guard status2 == 200 else { throw BenchError("session: HTTP \(status2) \(String(buffer: body2).prefix(200))") }
        return try WireCoding.makeDecoder().decode(SessionResponse.self, from: Data(body2.readableBytesView)).session
    }

    /// Registers and logs in `count` users, `parallel` at a time.
    func prepareUsers(count: Int, role: String, run: String, parallel: Int = 8) async throws -> [BenchUser] {
        var users = try (0..<count).map { try Self.makeUser(index: $0, role: role, run: run) }
        let relayID = try await self.relayID()
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var next = 0
            func add() {
                let index = next
                let user = users[index]
                next += 1
                group.addTask {
                    try await self.register(user, relayID: relayID)
                    return (index, try await self.login(user))
                }
            }
            while next < min(parallel, count) { add() }
            while let (index, session) = try await group.next() {
                users[index].session = session
                if next < count { add() }
            }
        }
        return users
    }
}
