import WotsStorage

/// Fresh in-memory repositories for the contract suite.
enum InMemoryTestBackend {
    static func make() -> StorageBackend {
        StorageBackend(
            directory: InMemoryDirectoryRepository(),
            privateRecords: InMemoryPrivateRecordRepository(),
            mailboxes: InMemoryMailboxRepository(),
            authentication: InMemoryAuthenticationRepository(),
            tearDown: {}
        )
    }
}
