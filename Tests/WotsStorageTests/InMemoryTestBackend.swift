import WotsStorage

/// Fresh in-memory repositories for the contract suite.
enum InMemoryTestBackend {
    static func make() -> StorageBackend {
        let directory = InMemoryDirectoryRepository()
        let privateRecords = InMemoryPrivateRecordRepository()
        let mailboxes = InMemoryMailboxRepository()
        let authentication = InMemoryAuthenticationRepository()
        return StorageBackend(
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
            tearDown: {}
        )
    }
}
