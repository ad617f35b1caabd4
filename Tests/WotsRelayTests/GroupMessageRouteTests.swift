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

/// `POST/GET /v1/group-messages` and its acknowledgement: the relay's checks, storage once, one slot each.
@Suite struct GroupMessageRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol
    let mallory = TestIdentities.mallory

    func withUsers(
        configuration: RelayConfiguration = RelayHarness.testConfiguration,
        storage: RelayStorage = .inMemory(),
        _ body: @Sendable (any TestClientProtocol, [String: String]) async throws -> Void
    ) async throws {
        let harness = try await RelayHarness.make(configuration: configuration, storage: storage)
        try await harness.routerApplication.test(.router) { client in
            var sessions: [String: String] = [:]
            for user in [alice, bob, carol] {
                try await client.register(user)
                sessions[user.nickname.value] = try await client.login(user)
            }
            try await body(client, sessions)
        }
    }

    func post(_ request: GroupSendRequest, _ client: any TestClientProtocol, session: String) async throws
        -> TestResponse
    {
        try await client.request("/v1/group-messages", method: .post, session: session, body: try jsonBody(request))
    }

    func read(_ client: any TestClientProtocol, session: String) async throws -> [DeliveredGroupMessage] {
        let response = try await client.request("/v1/group-messages", method: .get, session: session)
        #expect(response.status == .ok)
        return try response.decode(GroupMailboxResponse.self).messages
    }

    @Test func eachMemberReadsTheBodyWithItsOwnSlotAndTheLastAcknowledgementDeletesIt() async throws {
        let storage = RelayStorage.inMemory()
        try await self.withUsers(storage: storage) { client, sessions in
            let sealed = try sealForGroup("hello group", from: alice, to: [bob, carol])
            let request = GroupSendRequest(body: sealed.envelope, slots: sealed.slots)
            let response = try await post(request, client, session: sessions["alice"]!)
            #expect(response.status == .accepted, "\(response.errorMessage ?? "")")
            #expect(try response.decode(GroupSendReceipt.self).recipients == 2)
            let again = try await post(request, client, session: sessions["alice"]!)
            #expect(again.status == .accepted)
            for member in [bob, carol] {
                let messages = try await read(client, session: sessions[member.nickname.value]!)
                #expect(messages.count == 1)
                let opened = try messages[0].body.open(
                    slot: messages[0].slot,
                    as: member.token,
                    identity: member.identity,
                    senderKeys: alice.publicKeys
                )
                #expect(opened.plaintext == Array("hello group".utf8))
            }
            let groups = try #require(storage.mailboxes as? any GroupMailboxRepository)
            #expect(try await groups.groupStatistics().bodies == 1)
            for member in [bob, carol] {
                let ack = try await client.request(
                    "/v1/group-messages/ack",
                    method: .post,
                    session: sessions[member.nickname.value]!,
                    body: try jsonBody(AcknowledgeRequest(messages: [sealed.envelope.header.messageKey]))
                )
                #expect(try ack.decode(AcknowledgeResponse.self).acknowledged == 1)
            }
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
        }
    }

    @Test func theRelayRefusesAnotherSendersMessageATamperedSlotAnUnknownRecipientAndTooManyMembers() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.maximumGroupMembers = 1
        try await self.withUsers(configuration: configuration) { client, sessions in
            let sealed = try sealForGroup("hi", from: alice, to: [bob, carol])
            let tooMany = try await post(
                GroupSendRequest(body: sealed.envelope, slots: sealed.slots),
                client,
                session: sessions["alice"]!
            )
            #expect(tooMany.errorCode == .invalidArgument)
        }
        try await self.withUsers { client, sessions in
            let sealed = try sealForGroup("hi", from: alice, to: [bob, carol])
            let asBob = try await post(
                GroupSendRequest(body: sealed.envelope, slots: sealed.slots),
                client,
                session: sessions["bob"]!
            )
            #expect(asBob.errorCode == .senderMismatch)
            var slots = sealed.slots
            slots[0].wrappedKey[0] ^= 1
            let tampered = try await post(
                GroupSendRequest(body: sealed.envelope, slots: slots),
                client,
                session: sessions["alice"]!
            )
            #expect(tampered.errorCode == .badSignature)
            let toMallory = try sealForGroup("hi", from: alice, to: [bob, mallory])
            let unknown = try await post(
                GroupSendRequest(body: toMallory.envelope, slots: toMallory.slots),
                client,
                session: sessions["alice"]!
            )
            #expect(unknown.errorCode == .unknownRecipient)
            #expect(try await read(client, session: sessions["bob"]!).isEmpty)
        }
    }
}
