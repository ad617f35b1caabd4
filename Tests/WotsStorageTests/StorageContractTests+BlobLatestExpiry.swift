import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    static func newBlob(uploader: Token, size: Int64, recipients: [Token], latestExpiry: Date?) -> NewBlob {
        NewBlob(
            id: try! BlobID(bytes: TestValues.randomBytes(16)),
            uploader: uploader,
            size: size,
            recipients: recipients,
            createdAt: TestValues.time(),
            expiresAt: TestValues.time(1_700_000_100_000),
            latestExpiry: latestExpiry
        )
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aBlobWithALatestExpiryIsDeletedThenWhetherUnfinishedOrComplete(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let retention = TestValues.time(1_800_000_000_000)
            let unfinishedMessageExpiry = TestValues.time(1_700_000_050_000)
            let completeMessageExpiry = TestValues.time(1_750_000_000_000)
            let unfinished = Self.newBlob(
                uploader: alice,
                size: 4,
                recipients: [bob],
                latestExpiry: unfinishedMessageExpiry
            )
            let complete = Self.newBlob(
                uploader: alice,
                size: 2,
                recipients: [bob],
                latestExpiry: completeMessageExpiry
            )
            let timerless = Self.newBlob(uploader: alice, size: 2, recipients: [bob], latestExpiry: nil)
            for blob in [unfinished, complete, timerless] {
                try await backend.blobs.create(blob, quota: Self.blobQuota)
            }
            _ = try await backend.blobs.append([1], to: unfinished.id, at: 0, completedExpiry: retention)
            _ = try await backend.blobs.append([1, 2], to: complete.id, at: 0, completedExpiry: retention)
            _ = try await backend.blobs.append([1, 2], to: timerless.id, at: 0, completedExpiry: retention)

            let stored = try #require(try await backend.blobs.blob(unfinished.id))
            #expect(stored.expiresAt == unfinishedMessageExpiry && stored.latestExpiry == unfinishedMessageExpiry)
            let completed = try #require(try await backend.blobs.blob(complete.id))
            #expect(completed.expiresAt == completeMessageExpiry && completed.latestExpiry == completeMessageExpiry)
            #expect(try await backend.blobs.blob(timerless.id)?.expiresAt == retention)

            let justBefore = unfinishedMessageExpiry.addingTimeInterval(-0.001)
            #expect(try await backend.blobs.deleteExpired(now: justBefore) == 0)
            #expect(try await backend.blobs.deleteExpired(now: unfinishedMessageExpiry) == 1)
            #expect(try await backend.blobs.blob(unfinished.id) == nil)
            #expect(try await backend.blobs.deleteExpired(now: completeMessageExpiry) == 1)
            #expect(try await backend.blobs.blob(complete.id) == nil)
            #expect(try await backend.blobs.chunk(of: complete.id, containing: 0) == nil)
            #expect(try await backend.blobs.blob(timerless.id)?.expiresAt == retention)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anUnfinishedBlobIsDeletedAtItsUsualExpiryWhenTheLatestIsLater(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let blob = Self.newBlob(
                uploader: alice,
                size: 2,
                recipients: [bob],
                latestExpiry: TestValues.time(1_750_000_000_000)
            )
            try await backend.blobs.create(blob, quota: Self.blobQuota)
            #expect(try await backend.blobs.blob(blob.id)?.expiresAt == TestValues.time(1_700_000_100_000))
            #expect(try await backend.blobs.deleteExpired(now: TestValues.time(1_700_000_100_000)) == 1)
        }
    }
}
