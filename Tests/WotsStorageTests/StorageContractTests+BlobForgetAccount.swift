import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func aDeletedAccountStopsHoldingBlobsBackAndLeavesNoUnfinishedUpload(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (gone, alice, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let completed = TestValues.time(1_800_000_000_000)
            // Waited for only by the deleted account: nobody will ever fetch it.
            let onlyForGone = Self.newBlob(uploader: alice, size: 1, recipients: [gone])
            // Also waited for by carol: it stays for her.
            let shared = Self.newBlob(uploader: alice, size: 1, recipients: [gone, carol])
            // Its unfinished upload can never be completed.
            let unfinished = Self.newBlob(uploader: gone, size: 2, recipients: [alice])
            // Its finished upload stays for alice, like a message it sent.
            let sent = Self.newBlob(uploader: gone, size: 1, recipients: [alice])
            for blob in [onlyForGone, shared, unfinished, sent] {
                try await backend.blobs.create(blob, quota: Self.blobQuota)
            }
            for blob in [onlyForGone, shared, sent] {
                _ = try await backend.blobs.append([7], to: blob.id, at: 0, completedExpiry: completed)
            }
            _ = try await backend.blobs.append([7], to: unfinished.id, at: 0, completedExpiry: completed)

            #expect(try await backend.blobs.forgetAccount(gone) == 2)
            #expect(try await backend.blobs.blob(onlyForGone.id) == nil)
            #expect(try await backend.blobs.blob(unfinished.id) == nil)
            #expect(try await backend.blobs.blob(sent.id) != nil)
            #expect(try await backend.blobs.blob(shared.id)?.acknowledged == [gone])
            #expect(try await backend.blobs.acknowledge(shared.id, by: carol))
            #expect(try await backend.blobs.blob(shared.id) == nil)
            #expect(try await backend.blobs.forgetAccount(gone) == 0)
        }
    }
}
