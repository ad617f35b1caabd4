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

/// The blob API: create, resumable upload, offset, resumable download, acknowledge; strangers see nothing.
@Suite struct BlobRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    func withUsers(
        configuration: RelayConfiguration = RelayHarness.testConfiguration,
        _ body: @Sendable (Relay, any TestClientProtocol, [String: String]) async throws -> Void
    ) async throws {
        let harness = try await RelayHarness.make(configuration: configuration)
        try await harness.routerApplication.test(.router) { client in
            var sessions: [String: String] = [:]
            for user in [alice, bob, mallory] {
                try await client.register(user)
                sessions[user.nickname.value] = try await client.login(user)
            }
            try await body(harness.relay, client, sessions)
        }
    }

    func create(_ client: any TestClientProtocol, size: Int64, for recipients: [Token], session: String)
        async throws -> TestResponse
    {
        try await client.request(
            "/v1/blobs",
            method: .post,
            session: session,
            body: jsonBody(CreateBlobRequest(size: size, recipients: recipients))
        )
    }

    func patch(
        _ client: any TestClientProtocol,
        _ id: BlobID,
        offset: Int64,
        _ bytes: [UInt8],
        session: String
    ) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/blobs/\(id)",
            method: .patch,
            headers: [
                .authorization: "Bearer \(session)", .contentType: "application/octet-stream",
                .uploadOffset: String(offset),
            ],
            body: ByteBuffer(bytes: bytes)
        ) { $0 }
    }

    func get(_ client: any TestClientProtocol, _ id: BlobID, range: String? = nil, session: String) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.authorization: "Bearer \(session)"]
        if let range { headers[.range] = range }
        return try await client.execute(uri: "/v1/blobs/\(id)", method: .get, headers: headers, body: nil) { $0 }
    }

    @Test func aBlobIsUploadedInChunksDownloadedWithRangesAndDeletedOnceAcknowledged() async throws {
        try await self.withUsers { relay, client, sessions in
            let (a, b) = (sessions["alice"]!, sessions["bob"]!)
            let bytes = (0..<3_000).map { UInt8($0 % 251) }
            let created = try await self.create(client, size: 3_000, for: [bob.token], session: a)
            #expect(created.status == .created)
            let status = try created.decode(BlobStatus.self)
            #expect(status.size == 3_000 && status.received == 0)

            let first = try await self.patch(client, status.id, offset: 0, Array(bytes[..<1_000]), session: a)
            #expect(first.status == .noContent)
            #expect(first.headers[.uploadOffset] == "1000")
            let early = try await self.get(client, status.id, session: b)
            #expect(early.status == .conflict)
            #expect(early.errorCode == .blobIncomplete)

            let stale = try await self.patch(client, status.id, offset: 0, Array(bytes[..<1_000]), session: a)
            #expect(stale.status == .conflict)
            #expect(stale.errorCode == .blobOffsetMismatch)
            #expect(stale.headers[.uploadOffset] == "1000")
            let head = try await client.execute(
                uri: "/v1/blobs/\(status.id)",
                method: .head,
                headers: [.authorization: "Bearer \(b)"],
                body: nil
            ) { $0 }
            #expect(head.status == .ok)
            #expect(head.headers[.uploadOffset] == "1000" && head.headers[.uploadLength] == "3000")

            let rest = try await self.patch(client, status.id, offset: 1_000, Array(bytes[1_000...]), session: a)
            #expect(rest.headers[.uploadOffset] == "3000")
            let whole = try await self.get(client, status.id, session: b)
            #expect(whole.status == .ok)
            #expect(Array(whole.body.readableBytesView) == bytes)
            let tail = try await self.get(client, status.id, range: "bytes=1500-", session: b)
            #expect(tail.status == .partialContent)
            #expect(tail.headers[.contentRange] == "bytes 1500-2999/3000")
            #expect(Array(tail.body.readableBytesView) == Array(bytes[1_500...]))

            let ack = try await client.request("/v1/blobs/\(status.id)/ack", method: .post, session: b)
            #expect(try ack.decode(BlobAcknowledgement.self).deleted)
            #expect(try await relay.storage.blobs.blob(status.id) == nil)
            #expect(try await self.get(client, status.id, session: b).errorCode == .unknownBlob)
            #expect(relay.metrics.exposition().contains("wots_blob_bytes_uploaded_total 3000"))
        }
    }

    @Test func aStrangerFindsNoBlobAndARecipientCannotUpload() async throws {
        try await self.withUsers { _, client, sessions in
            let (a, b, m) = (sessions["alice"]!, sessions["bob"]!, sessions["mallory"]!)
            let id = try await self.create(client, size: 10, for: [bob.token], session: a).decode(BlobStatus.self).id
            _ = try await self.patch(client, id, offset: 0, Array(repeating: 1, count: 10), session: a)

            let stranger = try await self.get(client, id, session: m)
            #expect(stranger.status == .notFound)
            #expect(stranger.errorCode == .unknownBlob)
            #expect(
                try await client.request("/v1/blobs/\(id)/ack", method: .post, session: m).errorCode == .unknownBlob
            )
            #expect(try await self.patch(client, id, offset: 10, [1], session: m).errorCode == .unknownBlob)
            #expect(try await self.patch(client, id, offset: 10, [1], session: b).errorCode == .unknownBlob)
            let missing = try await self.get(client, try BlobID(bytes: Array(repeating: 7, count: 16)), session: b)
            #expect(missing.errorCode == .unknownBlob)
            #expect(try await self.get(client, id, session: b).status == .ok)
        }
    }

    @Test func sizesAndQuotasAreEnforcedBeforeAnythingIsStored() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.maximumBlobSize = 1_000
        configuration.blobQuota = 1_500
        try await self.withUsers(configuration: configuration) { relay, client, sessions in
            let a = sessions["alice"]!
            let tooLarge = try await self.create(client, size: 1_001, for: [bob.token], session: a)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.errorCode == .blobTooLarge)

            let first = try await self.create(client, size: 1_000, for: [bob.token], session: a).decode(BlobStatus.self)
            let overQuota = try await self.create(client, size: 501, for: [bob.token], session: a)
            #expect(overQuota.status == .tooManyRequests)
            #expect(overQuota.errorCode == .blobQuotaExceeded)
            #expect(
                try await self.create(client, size: 500, for: [bob.token], session: sessions["mallory"]!).status
                    == .created
            )

            let overrun = try await self.patch(
                client,
                first.id,
                offset: 0,
                Array(repeating: 0, count: 1_001),
                session: a
            )
            #expect(overrun.errorCode == .blobTooLarge)
            #expect(try await relay.storage.blobs.blob(first.id)?.received == 0)
            let noRecipients = try await self.create(client, size: 10, for: [], session: a)
            #expect(noRecipients.errorCode == .invalidArgument)
        }
    }

    @Test func anUploadChunkIsAtMostOneMebibyte() async throws {
        try await self.withUsers { _, client, sessions in
            let a = sessions["alice"]!
            let id = try await self.create(client, size: 2 << 20, for: [bob.token], session: a).decode(BlobStatus.self)
                .id
            let big = try await self.patch(client, id, offset: 0, Array(repeating: 0, count: (1 << 20) + 1), session: a)
            #expect(big.status == .contentTooLarge)
            let exact = try await self.patch(client, id, offset: 0, Array(repeating: 0, count: 1 << 20), session: a)
            #expect(exact.status == .noContent)
        }
    }

    @Test func theSweeperDeletesUnfinishedUploadsAfterADayAndFinishedBlobsAtRetention() async throws {
        try await self.withUsers { relay, client, sessions in
            let a = sessions["alice"]!
            let unfinished = try await self.create(client, size: 10, for: [bob.token], session: a)
                .decode(BlobStatus.self)
            let finished = try await self.create(client, size: 1, for: [bob.token], session: a).decode(BlobStatus.self)
            _ = try await self.patch(client, finished.id, offset: 0, [9], session: a)
            var logger = Logger(label: "wots.relay.test.sweeper")
            logger.logLevel = .warning
            let sweeper = Sweeper(
                storage: relay.storage,
                configuration: relay.configuration,
                metrics: relay.metrics,
                clock: .continuous,
                logger: logger
            )

            let nextDay = await sweeper.sweepOnce(now: Date().addingTimeInterval(24 * 3600 + 1))
            #expect(nextDay.blobs == 1)
            #expect(try await relay.storage.blobs.blob(unfinished.id) == nil)
            #expect(try await relay.storage.blobs.blob(finished.id) != nil)
            #expect(relay.metrics.exposition().contains("wots_blob_bytes_stored 1"))
            let later = Date().addingTimeInterval(relay.configuration.messageRetention.seconds + 1)
            #expect(await sweeper.sweepOnce(now: later).blobs == 1)
            #expect(try await relay.storage.blobs.blob(finished.id) == nil)
        }
    }
}
