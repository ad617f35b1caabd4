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

@Suite struct MessageRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    /// Registers alice, bob and mallory and hands their sessions to the test.
    func withUsers(
        configuration: RelayConfiguration = RelayHarness.testConfiguration,
        _ body: @Sendable (any TestClientProtocol, [String: String]) async throws -> Void
    ) async throws {
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            var sessions: [String: String] = [:]
            for user in [alice, bob, mallory] {
                try await client.register(user)
                sessions[user.nickname.value] = try await client.login(user)
            }
            try await body(client, sessions)
        }
    }

    @Test func aStoredMessageIsAcceptedThenReadByItsRecipient() async throws {
        try await self.withUsers { client, sessions in
            let envelope = try seal("hello bob", from: alice, to: bob)
            let response = try await client.send(envelope, session: sessions["alice"]!)
            #expect(response.status == .accepted)
            let receipt = try response.decode(SendReceipt.self)
            #expect(receipt.id == envelope.header.messageID)
            let messages = try await client.mailbox(session: sessions["bob"]!)
            #expect(messages.map(\.envelope) == [envelope])
            #expect(messages.first?.seq == receipt.seq)
            let opened = try messages[0].envelope.open(
                as: bob.token,
                identity: bob.identity,
                senderKeys: alice.publicKeys
            )
            #expect(opened.text == "hello bob")
        }
    }

    @Test func resendingTheSameEnvelopeGetsTheSameReceiptAndStoresOneCopy() async throws {
        try await self.withUsers { client, sessions in
            let envelope = try seal("once", from: alice, to: bob)
            let first = try await client.send(envelope, session: sessions["alice"]!).decode(SendReceipt.self)
            let again = try await client.send(envelope, session: sessions["alice"]!)
            #expect(again.status == .accepted)
            #expect(try again.decode(SendReceipt.self) == first)
            #expect(try await client.mailbox(session: sessions["bob"]!).count == 1)
        }
    }

    @Test func aDifferentEnvelopeWithAUsedIDIsAConflict() async throws {
        try await self.withUsers { client, sessions in
            let id = UUID()
            _ = try await client.send(try seal("one", from: alice, to: bob, id: id), session: sessions["alice"]!)
            let response = try await client.send(
                try seal("two", from: alice, to: bob, id: id),
                session: sessions["alice"]!
            )
            #expect(response.status == .conflict)
            #expect(response.errorCode == .messageIDConflict)
        }
    }

    @Test func aSessionCannotSendAsSomeoneElse() async throws {
        try await self.withUsers { client, sessions in
            let forged = try seal("from alice, honest", from: alice, to: bob)
            let response = try await client.send(forged, session: sessions["mallory"]!)
            #expect(response.status == .forbidden)
            #expect(response.errorCode == .senderMismatch)
            #expect(try await client.mailbox(session: sessions["bob"]!).isEmpty)
        }
    }

    @Test func anEnvelopeWithABadSignatureIsRefused() async throws {
        try await self.withUsers { client, sessions in
            var envelope = try seal("tampered", from: alice, to: bob)
            envelope.ciphertext[0] ^= 1
            let response = try await client.send(envelope, session: sessions["alice"]!)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .badSignature)
            #expect(try await client.mailbox(session: sessions["bob"]!).isEmpty)
        }
    }

    @Test func anEnvelopeSignedByAnotherKeyIsRefused() async throws {
        try await self.withUsers { client, sessions in
            let envelope = try Envelope.seal(
                plaintext: Array("signed by mallory".utf8),
                from: alice.token,
                identity: mallory.identity,
                to: bob.token,
                recipientKeys: bob.publicKeys
            )
            let response = try await client.send(envelope, session: sessions["alice"]!)
            #expect(response.status == .badRequest)
            #expect(try await client.mailbox(session: sessions["bob"]!).isEmpty)
        }
    }

    @Test func anOversizedEnvelopeIsRefused() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.maximumEnvelopeSize = 4_096
        try await self.withUsers(configuration: configuration) { client, sessions in
            let envelope = try seal(String(repeating: "x", count: 5_000), from: alice, to: bob)
            let response = try await client.send(envelope, session: sessions["alice"]!)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == .envelopeTooLarge)
        }
    }

    @Test func aBodyLargerThanTheRequestLimitIsRefused() async throws {
        try await self.withUsers { client, sessions in
            let response = try await client.request(
                "/v1/messages",
                method: .post,
                session: sessions["alice"]!,
                body: .init(string: String(repeating: " ", count: 300_000))
            )
            #expect(response.status == .contentTooLarge)
        }
    }

    /// Plain JSON is read by the relay's scanner and anything else by Foundation's decoder: the same envelope is
    /// stored either way, and a bad body gets the error that names what is wrong and stores nothing.
    @Test func anEnvelopeBodyIsReadWhateverItsSpellingAndABadOneIsRefusedByName() async throws {
        try await self.withUsers { client, sessions in
            func post(_ text: String) async throws -> TestResponse {
                try await client.request(
                    "/v1/messages",
                    method: .post,
                    session: sessions["alice"]!,
                    body: .init(string: text)
                )
            }
            let envelope = try seal("escaped", from: alice, to: bob)
            let plain = String(decoding: try WireCoding.makeEncoder().encode(envelope), as: UTF8.self)
            let marker = "\"ciphertext\":\""
            let first = try #require(plain.range(of: marker)).upperBound
            let escape = String(format: "\\u%04X", plain.utf8[first])
            let escaped = plain.replacingCharacters(in: first..<plain.index(after: first), with: escape)
            #expect(escaped != plain)
            #expect(try await post(escaped).status == .accepted)
            #expect(try await client.mailbox(session: sessions["bob"]!).map(\.envelope) == [envelope])

            let other = String(
                decoding: try WireCoding.makeEncoder().encode(try seal("bad", from: alice, to: bob)),
                as: UTF8.self
            )
            let withoutNonce = other.replacingOccurrences(
                of: #","nonce":"[^"]*""#,
                with: "",
                options: .regularExpression
            )
            let missing = try await post(withoutNonce)
            #expect(missing.status == .badRequest)
            #expect(missing.errorCode == .invalidJSON)
            #expect(missing.errorMessage?.contains("\"nonce\" is missing") == true, "\(missing.errorMessage ?? "")")
            let trailing = try await post(other + " x")
            #expect(trailing.status == .badRequest)
            #expect(trailing.errorCode == .invalidJSON)
            #expect(try await client.mailbox(session: sessions["bob"]!).count == 1)
        }
    }

    @Test func anUnknownRecipientIs404() async throws {
        try await self.withUsers { client, sessions in
            let stranger = TestIdentities.carol
            let response = try await client.send(
                try seal("anyone?", from: alice, to: stranger),
                session: sessions["alice"]!
            )
            #expect(response.status == .notFound)
            #expect(response.errorCode == .unknownRecipient)
        }
    }

    @Test func aFullMailboxRefusesWithRetryAfterAndLosesNothing() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.mailboxCapacity = 2
        try await self.withUsers(configuration: configuration) { client, sessions in
            for text in ["1", "2"] {
                #expect(
                    try await client.send(try seal(text, from: alice, to: bob), session: sessions["alice"]!).status
                        == .accepted
                )
            }
            let refused = try await client.send(try seal("3", from: alice, to: bob), session: sessions["alice"]!)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == .mailboxFull)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(try await client.mailbox(session: sessions["bob"]!).count == 2)
        }
    }

    @Test func nobodyReadsSomeoneElsesMailbox() async throws {
        try await self.withUsers { client, sessions in
            _ = try await client.send(try seal("for bob only", from: alice, to: bob), session: sessions["alice"]!)
            #expect(try await client.mailbox(session: sessions["mallory"]!).isEmpty)
            #expect(try await client.mailbox(session: sessions["alice"]!).isEmpty)
        }
    }

    @Test func acknowledgedMessagesAreDeletedAndOthersStay() async throws {
        try await self.withUsers { client, sessions in
            let first = try seal("first", from: alice, to: bob)
            let second = try seal("second", from: alice, to: bob)
            _ = try await client.send(first, session: sessions["alice"]!)
            _ = try await client.send(second, session: sessions["alice"]!)
            let mallorysAck = try await client.acknowledge([first.header.messageKey], session: sessions["mallory"]!)
            #expect(try mallorysAck.decode(AcknowledgeResponse.self).acknowledged == 0)
            let ack = try await client.acknowledge([first.header.messageKey], session: sessions["bob"]!)
            #expect(
                try ack.decode(AcknowledgeResponse.self) == AcknowledgeResponse(messages: [first.header.messageKey])
            )
            #expect(try await client.mailbox(session: sessions["bob"]!).map(\.envelope) == [second])
        }
    }

    @Test func twoSendersUsingOneIDAreTwoMessagesAndAckingOneLeavesTheOther() async throws {
        try await self.withUsers { client, sessions in
            let id = UUID()
            let fromAlice = try seal("from alice", from: alice, to: bob, id: id)
            let fromMallory = try seal("from mallory", from: TestIdentities.mallory, to: bob, id: id)
            #expect(try await client.send(fromAlice, session: sessions["alice"]!).status == .accepted)
            #expect(try await client.send(fromMallory, session: sessions["mallory"]!).status == .accepted)
            #expect(try await client.mailbox(session: sessions["bob"]!).map(\.envelope) == [fromAlice, fromMallory])
            let ack = try await client.acknowledge([fromAlice.header.messageKey], session: sessions["bob"]!)
            #expect(try ack.decode(AcknowledgeResponse.self).acknowledged == 1)
            #expect(try await client.mailbox(session: sessions["bob"]!).map(\.envelope) == [fromMallory])
        }
    }

    @Test func aRetryAfterTheAcknowledgementGetsTheFirstReceiptAndIsNotStoredAgain() async throws {
        try await self.withUsers { client, sessions in
            let envelope = try seal("once", from: alice, to: bob)
            let first = try await client.send(envelope, session: sessions["alice"]!).decode(SendReceipt.self)
            _ = try await client.acknowledge([envelope.header.messageKey], session: sessions["bob"]!)
            let retry = try await client.send(envelope, session: sessions["alice"]!)
            #expect(retry.status == .accepted)
            #expect(try retry.decode(SendReceipt.self) == first)
            #expect(try await client.mailbox(session: sessions["bob"]!).isEmpty)

            var reused = try seal("another message, same id", from: alice, to: bob, id: envelope.header.messageID)
            reused.header.sentAtMilliseconds += 1
            let conflict = try await client.send(
                try seal("different", from: alice, to: bob, id: envelope.header.messageID),
                session: sessions["alice"]!
            )
            #expect(conflict.errorCode == .messageIDConflict)
        }
    }

    @Test func sendsPerTokenAreRateLimited() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.sendRate = RateLimit(perSecond: 0.001, burst: 2)
        try await self.withUsers(configuration: configuration) { client, sessions in
            for _ in 0..<2 {
                _ = try await client.send(try seal("ok", from: alice, to: bob), session: sessions["alice"]!)
            }
            let response = try await client.send(
                try seal("too many", from: alice, to: bob),
                session: sessions["alice"]!
            )
            #expect(response.status == .tooManyRequests)
            #expect(response.errorCode == .rateLimited)
            #expect(response.headers[.retryAfter] != nil)
        }
    }

    @Test(arguments: ["after=-1", "after=x", "limit=0", "limit=501"])
    func badMailboxQueriesAreRefused(query: String) async throws {
        try await self.withUsers { client, sessions in
            let response = try await client.request("/v1/messages?\(query)", method: .get, session: sessions["bob"]!)
            #expect(response.status == .badRequest)
        }
    }
}
