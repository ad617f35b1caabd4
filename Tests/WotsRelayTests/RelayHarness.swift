import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsStorageSQLite
import WotsTesting

/// A relay on fresh in-memory storage, plus the client steps tests repeat: register, log in, send.
struct RelayHarness {
    let relay: Relay

    static var testConfiguration: RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.port = 0
        configuration.sendRate = .unlimited
        configuration.registrationRate = .unlimited
        configuration.pingInterval = .seconds(5)
        // The production default. The deadline runs from the upgrade in real time (tests of it use a manual clock),
        // and under the whole suite's load a test's client can take seconds to send its auth frame.
        configuration.authenticationTimeout = .seconds(10)
        return configuration
    }

    static func make(
        configuration: RelayConfiguration = testConfiguration,
        storage: RelayStorage = .inMemory(),
        clock: RelayClock = .continuous
    ) async throws -> RelayHarness {
        var logger = Logger(label: "wots.relay.test")
        logger.logLevel = .warning
        return RelayHarness(
            relay: try await Relay(configuration: configuration, storage: storage, clock: clock, logger: logger)
        )
    }

    /// A relay on a fresh SQLite file, as `wots-relay serve --database sqlite:…` runs it; the file goes afterwards.
    static func withSQLite<Result: Sendable>(
        _ body: (RelayHarness, SQLiteDatabase) async throws -> Result
    ) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-harness-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("relay.sqlite").path)
        defer { try? database.close() }
        return try await body(try await Self.make(storage: .sqlite(database)), database)
    }

    /// Routes only, for `app.test(.router)`.
    var routerApplication: some ApplicationProtocol { Application(router: self.relay.buildRouter()) }
}

extension TestResponse {
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try WireCoding.makeDecoder().decode(type, from: Data(self.body.readableBytesView))
    }

    /// The `error.code` of an API refusal.
    var errorCode: ErrorCode? { try? self.decode(APIErrorBody.self).error.code }
    var errorMessage: String? { try? self.decode(APIErrorBody.self).error.message }
}

func jsonBody(_ value: some Encodable) throws -> ByteBuffer {
    ByteBuffer(bytes: try WireCoding.makeEncoder().encode(value))
}

extension TestClientProtocol {
    func request(
        _ uri: String,
        method: HTTPRequest.Method,
        session: String? = nil,
        body: ByteBuffer? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let session { headers[.authorization] = "Bearer \(session)" }
        return try await self.execute(uri: uri, method: method, headers: headers, body: body) { $0 }
    }

    /// The relay's id, from `GET /v1/relay`.
    func relayID() async throws -> [UInt8] {
        let identity = try await self.request("/v1/relay", method: .get).decode(RelayIdentity.self)
        return Array(Data(base64Encoded: identity.relayID)!)
    }

    /// A fresh challenge: the nonce (as sent) and its bytes, and the relay id.
    func challenge() async throws -> (nonce: String, nonceBytes: [UInt8], relayID: [UInt8]) {
        let challenge = try await self.request("/v1/auth/challenge", method: .post).decode(ChallengeResponse.self)
        return (
            challenge.nonce, Array(Data(base64Encoded: challenge.nonce)!),
            Array(Data(base64Encoded: challenge.relayID)!)
        )
    }

    func registrationRequest(for user: TestIdentity, nickname: String? = nil) async throws -> RegistrationRequest {
        try Self.registrationRequest(for: user, nickname: nickname, relayID: try await self.relayID())
    }

    static func registrationRequest(for user: TestIdentity, nickname: String? = nil, relayID: [UInt8]) throws
        -> RegistrationRequest
    {
        let name = try nickname.map { try Nickname($0) } ?? user.nickname
        return RegistrationRequest(
            token: user.token,
            nickname: name,
            publicKeys: user.publicKeys,
            privateRecord: try user.privateRecord(),
            proof: try RegistrationProof.sign(
                relayID: relayID,
                token: user.token,
                nickname: name,
                publicKeys: user.publicKeys,
                identity: user.identity
            ).base64
        )
    }

    @discardableResult
    func register(_ user: TestIdentity) async throws -> TestResponse {
        let response = try await self.request(
            "/v1/register",
            method: .post,
            body: try jsonBody(try await self.registrationRequest(for: user))
        )
        #expect(response.status == .created, "registering \(user.nickname): \(response.errorMessage ?? "")")
        return response
    }

    /// Challenge, sign, open a session; returns the bearer session.
    func login(_ user: TestIdentity) async throws -> String {
        let challenge = try await self.challenge()
        let signature = try user.identity.signAuthentication(
            relayID: challenge.relayID,
            nonce: challenge.nonceBytes,
            token: user.token
        )
        let response = try await self.request(
            "/v1/auth/session",
            method: .post,
            body: try jsonBody(SessionRequest(token: user.token, nonce: challenge.nonce, signature: signature.base64))
        )
        #expect(response.status == .ok, "login of \(user.nickname): \(response.errorMessage ?? "")")
        return try response.decode(SessionResponse.self).session
    }

    /// Restores `nickname` with a fresh challenge signed by `keys`' restore key.
    func restore(_ nickname: Nickname, keys: SecretKeys) async throws -> TestResponse {
        let challenge = try await self.challenge()
        let signature = try keys.signRestore(
            relayID: challenge.relayID,
            nonce: challenge.nonceBytes,
            nickname: nickname
        )
        return try await self.request(
            "/v1/restore",
            method: .post,
            body: try jsonBody(RestoreRequest(nickname: nickname, nonce: challenge.nonce, signature: signature.base64))
        )
    }

    /// Deletes the session's account with a fresh deletion statement signed by `user`.
    func deleteAccount(_ user: TestIdentity, session: String) async throws -> TestResponse {
        let challenge = try await self.challenge()
        let signature = try user.identity.signDeletion(
            relayID: challenge.relayID,
            nonce: challenge.nonceBytes,
            token: user.token
        )
        return try await self.request(
            "/v1/account/delete",
            method: .post,
            session: session,
            body: try jsonBody(DeletionRequest(nonce: challenge.nonce, signature: signature.base64))
        )
    }

    func send(_ envelope: Envelope, session: String) async throws -> TestResponse {
        try await self.request("/v1/messages", method: .post, session: session, body: try jsonBody(envelope))
    }

    func acknowledge(_ keys: [MessageKey], session: String) async throws -> TestResponse {
        try await self.request(
            "/v1/messages/ack",
            method: .post,
            session: session,
            body: try jsonBody(AcknowledgeRequest(messages: keys))
        )
    }

    func sendGroup(_ sealed: SealedGroupMessage, session: String) async throws -> TestResponse {
        try await self.request(
            "/v1/group-messages",
            method: .post,
            session: session,
            body: try jsonBody(GroupSendRequest(body: sealed.envelope, slots: sealed.slots))
        )
    }

    func mailbox(session: String, after: Int64 = 0) async throws -> [DeliveredMessage] {
        let response = try await self.request("/v1/messages?after=\(after)", method: .get, session: session)
        #expect(response.status == .ok)
        return try response.decode(MailboxResponse.self).messages
    }
}

func seal(_ text: String, from sender: TestIdentity, to recipient: TestIdentity, id: UUID = UUID()) throws -> Envelope {
    try Envelope.seal(
        plaintext: Array(text.utf8),
        messageID: id,
        from: sender.token,
        identity: sender.identity,
        to: recipient.token,
        recipientKeys: recipient.publicKeys
    )
}

/// A group message from `sender` to `recipients` in a fresh group at membership version 1.
func sealForGroup(_ text: String, from sender: TestIdentity, to recipients: [TestIdentity]) throws -> SealedGroupMessage
{
    try GroupEnvelope.seal(
        plaintext: Array(text.utf8),
        from: sender.token,
        identity: sender.identity,
        groupID: try GroupID(bytes: SecureRandom.bytes(16)),
        membershipVersion: 1,
        membershipStateHash: SecureRandom.bytes(32),
        senderSequence: 1,
        to: recipients.map { GroupRecipientKeys(token: $0.token, publicKeys: $0.publicKeys) }
    )
}

extension Array where Element == UInt8 {
    var base64: String { Data(self).base64EncodedString() }
}
