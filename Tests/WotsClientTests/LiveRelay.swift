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
import WotsTesting

@testable import WotsClient

/// A real relay on a loopback port (in-memory storage), and accounts of the test identities registered at it, each
/// with its own home folder and `Messenger`.
struct LiveRelay: Sendable {
    let client: any TestClientProtocol
    let port: Int
    let folder: TemporaryFolder
    let relayID: [UInt8]
    /// The relay itself, for what its storage holds.
    let relay: Relay

    var url: String { "http://127.0.0.1:\(self.port)" }

    /// - Parameter clock: the relay's clock (its calendar time starts now and moves as far as the clock does);
    ///   default real time.
    /// - Parameter sessionLifetime: how long a login lasts; default the relay's (an hour).
    /// - Parameter storage: default in-memory.
    static func run(
        clock: ManualClock? = nil,
        sessionLifetime: Duration? = nil,
        storage: RelayStorage = .inMemory(),
        _ body: @Sendable (LiveRelay) async throws -> Void
    ) async throws {
        var configuration = RelayConfiguration()
        if let sessionLifetime { configuration.sessionLifetime = sessionLifetime }
        configuration.port = 0
        configuration.sendRate = .unlimited
        configuration.registrationRate = .unlimited
        var logger = Logger(label: "wots.relay.test")
        logger.logLevel = .warning
        let relay = try await Relay(
            configuration: configuration,
            storage: storage,
            clock: clock.map { RelayClock($0) } ?? .continuous,
            logger: logger
        )
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try await relay.buildApplication().test(.live) { client in
            let identity = try await client.execute(uri: "/v1/relay", method: .get) { $0 }
            let relayID = try WireCoding.makeDecoder().decode(
                RelayIdentity.self,
                from: Data(identity.body.readableBytesView)
            ).relayID
            try await body(
                LiveRelay(
                    client: client,
                    port: try #require(client.port),
                    folder: folder,
                    relayID: Array(try #require(Data(base64Encoded: relayID))),
                    relay: relay
                )
            )
        }
    }

    /// Registers `user` at the relay and gives it a home folder of its own.
    /// - Parameter now: the account's clock, for disappearing messages. Default the system clock.
    func account(
        _ user: TestIdentity,
        avatar: Avatar? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> Messenger {
        let request = RegistrationRequest(
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.publicKeys,
            privateRecord: try user.privateRecord(avatar: avatar),
            proof: Data(try user.registrationProof(relayID: self.relayID)).base64EncodedString()
        )
        let response = try await self.client.execute(
            uri: "/v1/register",
            method: .post,
            headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: try WireCoding.makeEncoder().encode(request))
        ) { $0 }
        #expect(response.status == .created, "registering \(user.nickname)")
        let home = self.folder.url.appendingPathComponent("\(user.nickname)", isDirectory: true)
        let store = LocalStore(home: home)
        try store.create(
            LocalAccount(
                profile: Profile(
                    token: user.token,
                    nickname: user.nickname,
                    relay: self.url,
                    publicKeys: user.publicKeys,
                    fingerprint: user.fingerprint,
                    registeredAt: Date(),
                    relayID: self.relayID
                ),
                privateRecord: try user.privateRecord(avatar: avatar)
            )
        )
        return try self.messenger(home: home, secret: user.secret, now: now)
    }

    func messenger(home: URL, secret: String, now: @escaping @Sendable () -> Date = { Date() }) throws -> Messenger {
        var configuration = Messenger.Configuration(relay: nil, home: home, secret: .value(secret))
        configuration.now = now
        return try Messenger(configuration: configuration)
    }
}
