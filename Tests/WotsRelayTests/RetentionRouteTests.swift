import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WotsCore
import WotsStorage
import WotsTesting

@testable import WotsRelay

/// Undelivered mail expires after the retention period and its sender is told; each mailbox has a byte quota.
@Suite struct RetentionRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    /// Registers alice, bob and mallory on a relay and hands the relay, the client and their sessions to the test.
    func withUsers(
        configuration: RelayConfiguration = RelayHarness.testConfiguration,
        _ body: @Sendable (Relay, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            for user in [alice, bob, mallory] { try await client.register(user) }
            try await body(harness.relay, client)
        }
    }

    /// Fresh sessions: a sweep days ahead also ends every session of today.
    func login(_ client: any TestClientProtocol) async throws -> [String: String] {
        var sessions: [String: String] = [:]
        for user in [alice, bob, mallory] { sessions[user.nickname.value] = try await client.login(user) }
        return sessions
    }

    func notices(_ client: any TestClientProtocol, session: String) async throws -> [DeliveryNotice] {
        let response = try await client.request("/v1/notices", method: .get, session: session)
        #expect(response.status == .ok)
        return try response.decode(NoticesResponse.self).notices
    }

    @Test func aMessagePastItsRetentionIsGoneAndItsSenderIsToldUntilTheyClearIt() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.messageRetention = .seconds(30 * 86_400)
        try await self.withUsers(configuration: configuration) { relay, client in
            var sessions = try await self.login(client)
            let envelope = try seal("are you there?", from: alice, to: bob)
            let sent = try await client.send(envelope, session: sessions["alice"]!).decode(SendReceipt.self)
            let sweeper = relay.testSweeper(clock: .continuous)

            let early = await sweeper.sweepOnce(now: sent.receivedAt.addingTimeInterval(30 * 86_400 - 1))

            sessions = try await self.login(client)
            #expect(early.expiredMessages == 0)
            #expect(try await client.mailbox(session: sessions["bob"]!).count == 1)
            #expect(try await self.notices(client, session: sessions["alice"]!).isEmpty)

            let expiredAt = sent.receivedAt.addingTimeInterval(30 * 86_400 + 1)
            #expect(await sweeper.sweepOnce(now: expiredAt).expiredMessages == 1)
            sessions = try await self.login(client)
            #expect(try await client.mailbox(session: sessions["bob"]!).isEmpty)
            let notices = try await self.notices(client, session: sessions["alice"]!)
            #expect(
                notices == [
                    DeliveryNotice(
                        kind: .expired,
                        id: envelope.header.messageID,
                        to: bob.token,
                        receivedAt: sent.receivedAt,
                        expiredAt: expiredAt
                    )
                ]
            )
            #expect(try await self.notices(client, session: sessions["mallory"]!).isEmpty)
            #expect(relay.metrics.exposition().contains("wots_messages_expired_total 1"))

            let stranger = try await client.request(
                "/v1/notices/ack",
                method: .post,
                session: sessions["mallory"]!,
                body: jsonBody(ClearNoticesRequest(notices: [envelope.header.messageID]))
            )
            #expect(try stranger.decode(ClearNoticesResponse.self).cleared == 0)
            let cleared = try await client.request(
                "/v1/notices/ack",
                method: .post,
                session: sessions["alice"]!,
                body: jsonBody(ClearNoticesRequest(notices: [envelope.header.messageID]))
            )
            #expect(try cleared.decode(ClearNoticesResponse.self).notices == [envelope.header.messageID])
            #expect(try await self.notices(client, session: sessions["alice"]!).isEmpty)
        }
    }

    @Test func noticesThemselvesExpireAfterTheirLifetime() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.messageRetention = .seconds(2)
        configuration.expiryNoticeLifetime = .seconds(60)
        try await self.withUsers(configuration: configuration) { relay, client in
            var sessions = try await self.login(client)
            let sent = try await client.send(try seal("hello?", from: alice, to: bob), session: sessions["alice"]!)
                .decode(SendReceipt.self)
            let sweeper = relay.testSweeper(clock: .continuous)
            let expiredAt = sent.receivedAt.addingTimeInterval(3)
            #expect(await sweeper.sweepOnce(now: expiredAt).expiredMessages == 1)
            sessions = try await self.login(client)
            // A second either side of the lifetime: at exactly 60 s, (t + 60) - 60 in floating point may land past t.
            #expect(await sweeper.sweepOnce(now: expiredAt.addingTimeInterval(59)).notices == 0)
            sessions = try await self.login(client)
            #expect(try await self.notices(client, session: sessions["alice"]!).count == 1)
            #expect(await sweeper.sweepOnce(now: expiredAt.addingTimeInterval(61)).notices == 1)
            sessions = try await self.login(client)
            #expect(try await self.notices(client, session: sessions["alice"]!).isEmpty)
        }
    }

    @Test func theByteQuotaRefusesWithItsCodeAndFreesUpAfterAnAcknowledgement() async throws {
        let first = try seal("one", from: alice, to: bob)
        var configuration = RelayHarness.testConfiguration
        configuration.maximumEnvelopeSize = 1_024
        configuration.mailboxQuota = first.serialized.count * 2 - 1
        try await self.withUsers(configuration: configuration) { relay, client in
            let sessions = try await self.login(client)
            #expect(try await client.send(first, session: sessions["alice"]!).status == .accepted)
            let second = try seal("two", from: alice, to: bob)
            let refused = try await client.send(second, session: sessions["alice"]!)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == .mailboxQuotaExceeded)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(relay.metrics.exposition().contains("wots_mailbox_quota_refusals_total 1"))

            let ack = try await client.acknowledge([first.header.messageKey], session: sessions["bob"]!)
            #expect(try ack.decode(AcknowledgeResponse.self).acknowledged == 1)
            #expect(try await client.send(second, session: sessions["alice"]!).status == .accepted)
        }
    }

    @Test func aQuotaSmallerThanTheLargestEnvelopeIsRefused() throws {
        var configuration = RelayConfiguration()
        configuration.mailboxQuota = configuration.maximumEnvelopeSize - 1
        #expect(throws: WotsError(.invalidArgument, "")) { try configuration.validated() }
    }
}
