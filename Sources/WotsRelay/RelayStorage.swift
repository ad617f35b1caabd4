import WotsCore
public import WotsStorage

/// The repositories a relay works on, all backed by one database, and what that database's health is.
public struct RelayStorage: Sendable {
    public var directory: any DirectoryRepository
    public var privateRecords: any PrivateRecordRepository
    public var mailboxes: any MailboxRepository
    public var authentication: any AuthenticationRepository
    public var accounts: any AccountRepository
    /// Suspensions, invites and statistics: what the operator changes.
    public var administration: any AdministrationRepository
    /// The transparency log the directory and account repositories append to.
    public var log: any TransparencyLogRepository
    /// Encrypted attachment blobs.
    public var blobs: any BlobRepository
    /// Fed by every operation and by `probe`; `/readyz` reports it.
    public var health: StorageHealth
    /// Checks that the database answers, takes writes and has room, recording the outcome in `health`; throws the
    /// reason when it does not. `/readyz` and the health monitor call it.
    public var probe: @Sendable () async throws -> Void

    public init(
        directory: any DirectoryRepository,
        privateRecords: any PrivateRecordRepository,
        mailboxes: any MailboxRepository,
        authentication: any AuthenticationRepository,
        accounts: any AccountRepository,
        administration: any AdministrationRepository,
        log: any TransparencyLogRepository,
        blobs: any BlobRepository,
        health: StorageHealth,
        probe: @escaping @Sendable () async throws -> Void
    ) {
        self.directory = directory
        self.privateRecords = privateRecords
        self.mailboxes = mailboxes
        self.authentication = authentication
        self.accounts = accounts
        self.administration = administration
        self.log = log
        self.blobs = blobs
        self.health = health
        self.probe = probe
    }

    /// Fresh in-memory repositories, for tests.
    public static func inMemory() -> RelayStorage {
        let directory = InMemoryDirectoryRepository()
        let privateRecords = InMemoryPrivateRecordRepository()
        let mailboxes = InMemoryMailboxRepository()
        let authentication = InMemoryAuthenticationRepository()
        let health = StorageHealth()
        return RelayStorage(
            directory: directory,
            privateRecords: privateRecords,
            mailboxes: mailboxes,
            authentication: authentication,
            accounts: InMemoryAccountRepository(
                directory: directory,
                privateRecords: privateRecords,
                mailboxes: mailboxes,
                authentication: authentication
            ),
            administration: InMemoryAdministrationRepository(
                directory: directory,
                mailboxes: mailboxes,
                authentication: authentication
            ),
            log: directory.log,
            blobs: InMemoryBlobRepository(),
            health: health,
            probe: { health.recordProbe(.success(())) }
        )
    }
}

extension RelayStorage {
    /// The store of group messages: every backend's mailbox repository is one.
    func groupMailboxes() throws -> any GroupMailboxRepository { try Self.groupMailboxes(in: self.mailboxes) }

    static func groupMailboxes(in mailboxes: any MailboxRepository) throws -> any GroupMailboxRepository {
        guard let groups = mailboxes as? any GroupMailboxRepository else {
            throw WotsError(.internalError, "this relay's mailbox store cannot hold group messages")
        }
        return groups
    }
}
