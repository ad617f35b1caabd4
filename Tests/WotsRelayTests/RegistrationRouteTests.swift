import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

@Suite struct RegistrationRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func aValidRegistrationIsListedInTheDirectory() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let entry = try await client.register(alice).decode(DirectoryEntry.self)
            #expect(entry.fingerprint == alice.fingerprint)
            let found = try await client.request("/v1/directory/\(alice.nickname.value.uppercased())", method: .get)
            #expect(try found.decode(DirectoryEntry.self).token == alice.token)
            let byToken = try await client.request("/v1/directory/token/\(alice.token)", method: .get)
            #expect(try byToken.decode(DirectoryEntry.self).nickname == alice.nickname)
        }
        #expect(try await harness.relay.storage.privateRecords.record(for: alice.token) != nil)
    }

    @Test func aNicknameTakenInAnyCaseIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let request = try await client.registrationRequest(for: bob, nickname: alice.nickname.value.uppercased())
            let response = try await client.request("/v1/register", method: .post, body: try jsonBody(request))
            #expect(response.status == .conflict)
            #expect(response.errorCode == .nicknameTaken)
        }
        #expect(try await harness.relay.storage.privateRecords.record(for: bob.token) == nil)
    }

    @Test func aTakenTokenIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let again = try await client.registrationRequest(for: alice, nickname: "alice-two")
            let response = try await client.request("/v1/register", method: .post, body: try jsonBody(again))
            #expect(response.status == .conflict)
            #expect(response.errorCode == .tokenTaken)
        }
        #expect(try await harness.relay.storage.directory.entry(nickname: try Nickname("alice-two")) == nil)
    }

    @Test func aProofSignedByAnotherKeyIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            var request = try await client.registrationRequest(for: alice)
            request.proof = try RegistrationProof.sign(
                relayID: try await client.relayID(),
                token: alice.token,
                nickname: alice.nickname,
                publicKeys: TestIdentities.mallory.publicKeys,
                identity: TestIdentities.mallory.identity
            ).base64
            let response = try await client.request("/v1/register", method: .post, body: try jsonBody(request))
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .badProof)
        }
        #expect(try await harness.relay.storage.directory.count() == 0)
    }

    @Test(arguments: [
        ("{", "invalid_json"),
        ("[]", "invalid_json"),
        ("{\"token\": 5}", "invalid_json"),
        ("{\"token\": \"zijosdxwlrzlbou3pc4us3bmii\"}", "invalid_json"),
    ])
    func malformedBodiesAreRefusedWithAReason(body: String, code: String) async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/v1/register", method: .post, body: .init(string: body))
            #expect(response.status == .badRequest)
            #expect(response.errorCode == ErrorCode(wireName: code))
            #expect(response.errorMessage?.isEmpty == false)
        }
    }

    @Test func anInvalidNicknameIsRefusedNamingTheRule() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            var json = String(
                decoding: try WireCoding.makeEncoder().encode(try await client.registrationRequest(for: alice)),
                as: UTF8.self
            )
            json = json.replacingOccurrences(of: "\"nickname\":\"alice\"", with: "\"nickname\":\"Al\"")
            let response = try await client.request("/v1/register", method: .post, body: .init(string: json))
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .invalidNickname)
            #expect(response.errorMessage == "nickname \"Al\" is too short (3–32 characters)")
        }
    }

    @Test func registrationsPerAddressAreRateLimited() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.registrationRate = RateLimit(perSecond: 0.001, burst: 1)
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            let response = try await client.request(
                "/v1/register",
                method: .post,
                body: try jsonBody(try await client.registrationRequest(for: bob))
            )
            #expect(response.status == .tooManyRequests)
            #expect(response.headers[.retryAfter] != nil)
        }
    }

    @Test func aFailedPrivateRecordWriteLeavesNoDirectoryEntry() async throws {
        var storage = RelayStorage.inMemory()
        storage.privateRecords = FailingPrivateRecords()
        let harness = try await RelayHarness.make(storage: storage)
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request(
                "/v1/register",
                method: .post,
                body: try jsonBody(try await client.registrationRequest(for: alice))
            )
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorCode == .storageUnavailable)
        }
        #expect(try await harness.relay.storage.directory.entry(token: alice.token) == nil)
    }
}

/// A private-record repository whose disk is always full.
struct FailingPrivateRecords: PrivateRecordRepository {
    func create(_ record: PrivateRecord) async throws { throw WotsError(.storageUnavailable, "disk full") }
    func put(_ record: PrivateRecord) async throws { throw WotsError(.storageUnavailable, "disk full") }
    func record(for token: Token) async throws -> PrivateRecord? { nil }
    func delete(token: Token) async throws {}
}
