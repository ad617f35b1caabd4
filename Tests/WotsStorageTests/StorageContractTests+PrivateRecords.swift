import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func privateRecordsAreCreatedReplacedReadAndDeleted(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let withPreset = TestValues.record(avatar: .preset(.rooster))
            let withImage = TestValues.record(
                avatar: .image([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
            )
            let withoutAvatar = TestValues.record(avatar: nil)
            for record in [withPreset, withImage, withoutAvatar] {
                try await backend.privateRecords.create(record)
                #expect(try await backend.privateRecords.record(for: record.token) == record)
            }

            var replaced = TestValues.record(withPreset.token, avatar: nil)
            replaced.keyDerivation = KeyDerivationParameters(salt: TestValues.randomBytes(16), n: 1 << 20, r: 8, p: 2)
            try await backend.privateRecords.put(replaced)
            #expect(try await backend.privateRecords.record(for: withPreset.token) == replaced)

            let fresh = TestValues.record()
            try await backend.privateRecords.put(fresh)
            #expect(try await backend.privateRecords.record(for: fresh.token) == fresh)

            try await backend.privateRecords.delete(token: withPreset.token)
            #expect(try await backend.privateRecords.record(for: withPreset.token) == nil)
            #expect(try await backend.privateRecords.record(for: withImage.token) == withImage)
            // Deleting what is not there does nothing.
            try await backend.privateRecords.delete(token: withPreset.token)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func creatingAPrivateRecordTwiceIsRefused(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let record = TestValues.record()
            try await backend.privateRecords.create(record)
            await expectStorageError(.tokenTaken) {
                try await backend.privateRecords.create(TestValues.record(record.token))
            }
            #expect(try await backend.privateRecords.record(for: record.token) == record)
        }
    }
}
