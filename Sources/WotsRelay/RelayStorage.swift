public import WotsStorage

/// The repositories a relay works on, all backed by one database.
public struct RelayStorage: Sendable {
    public var directory: any DirectoryRepository
    public var privateRecords: any PrivateRecordRepository
    public var mailboxes: any MailboxRepository
    public var authentication: any AuthenticationRepository
    /// Throws when the database cannot be reached; `/readyz` calls it.
    public var checkReadiness: @Sendable () async throws -> Void

    public init(
        directory: any DirectoryRepository,
        privateRecords: any PrivateRecordRepository,
        mailboxes: any MailboxRepository,
        authentication: any AuthenticationRepository,
        checkReadiness: @escaping @Sendable () async throws -> Void
    ) {
        self.directory = directory
        self.privateRecords = privateRecords
        self.mailboxes = mailboxes
        self.authentication = authentication
        self.checkReadiness = checkReadiness
    }

    /// Fresh in-memory repositories, for tests.
    public static func inMemory() -> RelayStorage {
        RelayStorage(
            directory: InMemoryDirectoryRepository(),
            privateRecords: InMemoryPrivateRecordRepository(),
            mailboxes: InMemoryMailboxRepository(),
            authentication: InMemoryAuthenticationRepository(),
            checkReadiness: {}
        )
    }
}
