import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    static let blobQuota: Int64 = 1 << 30

    static func newBlob(
        uploader: Token,
        size: Int64,
        recipients: [Token],
        expiresAt: Date = TestValues.time(1_700_000_100_000)
    ) -> NewBlob {
        NewBlob(
            id: try! BlobID(bytes: TestValues.randomBytes(16)),
            uploader: uploader,
            size: size,
            recipients: recipients,
            createdAt: TestValues.time(),
            expiresAt: expiresAt
        )
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aBlobIsWrittenByAppendsAtItsOffsetAndReadBackByChunk(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let blob = Self.newBlob(uploader: alice, size: 5, recipients: [carol, bob, bob])
            try await backend.blobs.create(blob, quota: Self.blobQuota)
            let completed = TestValues.time(1_800_000_000_000)

            let created = try #require(try await backend.blobs.blob(blob.id))
            #expect(created.received == 0 && !created.isComplete)
            #expect(created.recipients == [bob, carol].sorted())
            #expect(created.expiresAt == blob.expiresAt)
            #expect(
                created.isVisible(to: alice) && created.isVisible(to: bob) && !created.isVisible(to: TestValues.token())
            )

            #expect(
                try await backend.blobs.append([1, 2, 3], to: blob.id, at: 0, completedExpiry: completed)
                    == .appended(received: 3)
            )
            #expect(
                try await backend.blobs.append([9], to: blob.id, at: 1, completedExpiry: completed)
                    == .offsetMismatch(current: 3)
            )
            await expectStorageError(.blobTooLarge) {
                _ = try await backend.blobs.append([4, 5, 6], to: blob.id, at: 3, completedExpiry: completed)
            }
            #expect(try await backend.blobs.blob(blob.id)?.expiresAt == blob.expiresAt)
            #expect(
                try await backend.blobs.append([4, 5], to: blob.id, at: 3, completedExpiry: completed)
                    == .appended(received: 5)
            )

            let complete = try #require(try await backend.blobs.blob(blob.id))
            #expect(complete.isComplete && complete.expiresAt == completed)
            #expect(
                try await backend.blobs.chunk(of: blob.id, containing: 0) == BlobChunk(offset: 0, bytes: [1, 2, 3])
            )
            #expect(
                try await backend.blobs.chunk(of: blob.id, containing: 2) == BlobChunk(offset: 0, bytes: [1, 2, 3])
            )
            #expect(try await backend.blobs.chunk(of: blob.id, containing: 4) == BlobChunk(offset: 3, bytes: [4, 5]))
            #expect(try await backend.blobs.chunk(of: blob.id, containing: 5) == nil)
            #expect(try await backend.blobs.storedBytes() == 5)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anAppendToAnUnknownBlobIsRefused(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let id = try BlobID(bytes: TestValues.randomBytes(16))
            await expectStorageError(.unknownBlob) {
                _ = try await backend.blobs.append([1], to: id, at: 0, completedExpiry: TestValues.time())
            }
            #expect(try await backend.blobs.blob(id) == nil)
            #expect(try await backend.blobs.chunk(of: id, containing: 0) == nil)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func theQuotaCountsEveryBlobTheUploaderStillHas(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let first = Self.newBlob(uploader: alice, size: 60, recipients: [bob])
            try await backend.blobs.create(first, quota: 100)
            try await backend.blobs.create(Self.newBlob(uploader: carol, size: 100, recipients: [bob]), quota: 100)
            await expectStorageError(.blobQuotaExceeded) {
                try await backend.blobs.create(Self.newBlob(uploader: alice, size: 41, recipients: [bob]), quota: 100)
            }
            try await backend.blobs.create(Self.newBlob(uploader: alice, size: 40, recipients: [bob]), quota: 100)

            _ = try await backend.blobs.append(
                Array(repeating: 7, count: 60),
                to: first.id,
                at: 0,
                completedExpiry: TestValues.time()
            )
            #expect(try await backend.blobs.acknowledge(first.id, by: bob))
            try await backend.blobs.create(Self.newBlob(uploader: alice, size: 60, recipients: [bob]), quota: 100)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aBlobIsDeletedWhenEveryRecipientAcknowledged(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let blob = Self.newBlob(uploader: alice, size: 2, recipients: [bob, carol])
            try await backend.blobs.create(blob, quota: Self.blobQuota)
            _ = try await backend.blobs.append([1, 2], to: blob.id, at: 0, completedExpiry: TestValues.time())

            await expectStorageError(.unknownBlob) { _ = try await backend.blobs.acknowledge(blob.id, by: alice) }
            #expect(try await backend.blobs.acknowledge(blob.id, by: bob) == false)
            #expect(try await backend.blobs.acknowledge(blob.id, by: bob) == false)
            #expect(try await backend.blobs.blob(blob.id)?.acknowledged == [bob])
            #expect(try await backend.blobs.acknowledge(blob.id, by: carol))

            #expect(try await backend.blobs.blob(blob.id) == nil)
            #expect(try await backend.blobs.chunk(of: blob.id, containing: 0) == nil)
            #expect(try await backend.blobs.storedBytes() == 0)
            await expectStorageError(.unknownBlob) { _ = try await backend.blobs.acknowledge(blob.id, by: carol) }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func expiredBlobsAreDeletedWithTheirChunks(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let soon = Self.newBlob(
                uploader: alice,
                size: 4,
                recipients: [bob],
                expiresAt: TestValues.time(1_700_000_001_000)
            )
            let later = Self.newBlob(
                uploader: alice,
                size: 4,
                recipients: [bob],
                expiresAt: TestValues.time(1_700_000_009_000)
            )
            try await backend.blobs.create(soon, quota: Self.blobQuota)
            try await backend.blobs.create(later, quota: Self.blobQuota)
            _ = try await backend.blobs.append([1, 2], to: soon.id, at: 0, completedExpiry: TestValues.time())

            #expect(try await backend.blobs.deleteExpired(now: TestValues.time(1_700_000_000_999)) == 0)
            #expect(try await backend.blobs.deleteExpired(now: TestValues.time(1_700_000_001_000)) == 1)
            #expect(try await backend.blobs.blob(soon.id) == nil)
            #expect(try await backend.blobs.chunk(of: soon.id, containing: 0) == nil)
            #expect(try await backend.blobs.blob(later.id) != nil)
            #expect(try await backend.blobs.storedBytes() == 4)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func chunksOfAMebibyteAreStoredWhole(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let chunk = TestValues.randomBytes(maximumBlobChunkSize)
            let blob = Self.newBlob(uploader: alice, size: Int64(chunk.count) + 1, recipients: [bob])
            try await backend.blobs.create(blob, quota: Self.blobQuota)
            _ = try await backend.blobs.append(chunk, to: blob.id, at: 0, completedExpiry: TestValues.time())
            _ = try await backend.blobs.append(
                [42],
                to: blob.id,
                at: Int64(chunk.count),
                completedExpiry: TestValues.time()
            )
            #expect(try await backend.blobs.chunk(of: blob.id, containing: 12_345)?.bytes == chunk)
            #expect(try await backend.blobs.chunk(of: blob.id, containing: Int64(chunk.count))?.bytes == [42])
        }
    }
}
