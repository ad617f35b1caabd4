public import WotsCore

/// The directory as the public half of a relay-side registration.
public struct DirectoryEntryParticipant: SaveParticipant {
    private let repository: any DirectoryRepository
    private let attestation: [UInt8]

    /// - Parameter attestation: the registration's proof of possession, logged with the entry.
    public init(repository: any DirectoryRepository, attestation: [UInt8] = []) {
        self.repository = repository
        self.attestation = attestation
    }

    public func save(_ entry: DirectoryEntry) async throws {
        try await self.repository.create(entry, attestation: self.attestation)
    }
    public func undo(_ entry: DirectoryEntry) async throws { try await self.repository.undoCreate(token: entry.token) }
}

/// The private-record repository as the private half of a relay-side registration.
public struct PrivateRecordParticipant: SaveParticipant {
    private let repository: any PrivateRecordRepository

    public init(repository: any PrivateRecordRepository) { self.repository = repository }

    public func save(_ record: PrivateRecord) async throws { try await self.repository.create(record) }
    public func undo(_ record: PrivateRecord) async throws { try await self.repository.delete(token: record.token) }
}
