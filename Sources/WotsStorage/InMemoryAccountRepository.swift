public import WotsCore

/// An `AccountRepository` over the in-memory repositories, for tests and throwaway relays. Nothing it does can fail
/// halfway: every check comes before the first change.
public struct InMemoryAccountRepository: AccountRepository {
    private let directory: InMemoryDirectoryRepository
    private let privateRecords: InMemoryPrivateRecordRepository
    private let mailboxes: InMemoryMailboxRepository
    private let authentication: InMemoryAuthenticationRepository

    public init(
        directory: InMemoryDirectoryRepository,
        privateRecords: InMemoryPrivateRecordRepository,
        mailboxes: InMemoryMailboxRepository,
        authentication: InMemoryAuthenticationRepository
    ) {
        self.directory = directory
        self.privateRecords = privateRecords
        self.mailboxes = mailboxes
        self.authentication = authentication
    }

    @discardableResult
    public func deleteAccount(token: Token) async throws -> DirectoryEntry {
        guard let entry = try await self.directory.entry(token: token) else { throw unknownAccount(token) }
        try await self.directory.delete(token: token)
        try await self.privateRecords.delete(token: token)
        try await self.mailboxes.deleteMailbox(of: token)
        try await self.authentication.deleteSessions(of: token)
        return entry
    }

    public func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        record: PrivateRecord,
        attestation: [UInt8]
    ) async throws -> DirectoryEntry {
        try self.validateRotation(token: token, record: record)
        guard try await self.directory.entry(token: token) != nil else { throw unknownAccount(token) }
        let updated = try await self.directory.rotateKeys(
            token: token,
            publicKeys: publicKeys,
            fingerprint: fingerprint,
            attestation: attestation
        )
        try await self.privateRecords.put(record)
        try await self.authentication.deleteSessions(of: token)
        return updated
    }
}
