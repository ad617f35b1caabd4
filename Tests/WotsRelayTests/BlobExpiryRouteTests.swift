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

/// A disappearing attachment's blob: created with its message's `expiresAt`, it is gone then, as its message is.
@Suite struct BlobExpiryRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    func withUsers(
        clock: ManualClock,
        _ body: @Sendable (Relay, any TestClientProtocol, String, String) async throws -> Void
    ) async throws {
        let harness = try await RelayHarness.make(clock: RelayClock(clock))
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(bob)
            try await body(harness.relay, client, try await client.login(alice), try await client.login(bob))
        }
    }

    func create(_ client: any TestClientProtocol, size: Int64, expiresAt: Date?, session: String) async throws
        -> TestResponse
    {
        try await client.request(
            "/v1/blobs",
            method: .post,
            session: session,
            body: jsonBody(CreateBlobRequest(size: size, recipients: [bob.token], expiresAt: expiresAt))
        )
    }

    func upload(_ client: any TestClientProtocol, _ id: BlobID, _ bytes: [UInt8], session: String) async throws
        -> TestResponse
    {
        try await client.execute(
            uri: "/v1/blobs/\(id)",
            method: .patch,
            headers: [
                .authorization: "Bearer \(session)", .contentType: "application/octet-stream", .uploadOffset: "0",
            ],
            body: ByteBuffer(bytes: bytes)
        ) { $0 }
    }

    func download(_ client: any TestClientProtocol, _ id: BlobID, session: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/blobs/\(id)",
            method: .get,
            headers: [.authorization: "Bearer \(session)"],
            body: nil
        ) { $0 }
    }

    @Test func deletingTheOnlyRecipientsAccountDeletesTheBlobItWasWaitingFor() async throws {
        try await self.withUsers(clock: ManualClock()) { relay, client, a, b in
            let created = try await self.create(client, size: 3, expiresAt: nil, session: a)
            let id = try created.decode(BlobStatus.self).id
            #expect(try await self.upload(client, id, [1, 2, 3], session: a).status == .noContent)
            #expect(try await client.deleteAccount(bob, session: b).status == .noContent)
            #expect(try await relay.storage.blobs.blob(id) == nil, "the blob waited for a recipient who is gone")
        }
    }

    @Test func aCompleteBlobIsGoneAtItsMessagesExpiryOnceTheSweeperRan() async throws {
        let clock = ManualClock()
        try await self.withUsers(clock: clock) { relay, client, a, b in
            let expiresAt = relay.clock.date().addingTimeInterval(60)
            let created = try await self.create(client, size: 3, expiresAt: expiresAt, session: a)
            #expect(created.status == .created)
            let status = try created.decode(BlobStatus.self)
            #expect(abs(status.expiresAt.timeIntervalSince(expiresAt)) < 0.001)
            #expect(try await self.upload(client, status.id, [1, 2, 3], session: a).status == .noContent)
            let stored = try #require(try await relay.storage.blobs.blob(status.id))
            #expect(stored.isComplete && stored.expiresAt == status.expiresAt, "completion does not extend it")
            #expect(try await self.download(client, status.id, session: b).status == .ok)

            clock.advance(by: .seconds(60))
            #expect(try await self.download(client, status.id, session: b).errorCode == .unknownBlob)
            #expect(await relay.testSweeper().sweepOnce(now: relay.clock.date()).blobs == 1)
            #expect(try await relay.storage.blobs.blob(status.id) == nil)
            let afterSweep = try await self.download(client, status.id, session: b)
            #expect(afterSweep.status == .notFound && afterSweep.errorCode == .unknownBlob)
        }
    }

    @Test func aBlobWhoseExpiresAtHasComeIsRefusedAndNotStored() async throws {
        let clock = ManualClock()
        try await self.withUsers(clock: clock) { relay, client, a, _ in
            let now = relay.clock.date()
            for expiresAt in [now, now.addingTimeInterval(-1)] {
                let refused = try await self.create(client, size: 3, expiresAt: expiresAt, session: a)
                #expect(refused.status == .unprocessableContent)
                #expect(refused.errorCode == .messageExpired, "\(refused.errorMessage ?? "")")
            }
            #expect(try await relay.storage.blobs.storedBytes() == 0)
        }
    }

    @Test func aBlobWithoutExpiresAtKeepsTheRelaysRetentionOnceComplete() async throws {
        let clock = ManualClock()
        try await self.withUsers(clock: clock) { relay, client, a, _ in
            let status = try await self.create(client, size: 1, expiresAt: nil, session: a).decode(BlobStatus.self)
            _ = try await self.upload(client, status.id, [7], session: a)
            let retention = relay.clock.date().addingTimeInterval(relay.configuration.messageRetention.seconds)
            let stored = try #require(try await relay.storage.blobs.blob(status.id))
            #expect(abs(stored.expiresAt.timeIntervalSince(retention)) < 0.001 && stored.latestExpiry == nil)
        }
    }
}
