import Logging
import WotsCore
import WotsRelay
import WotsStoragePostgres
import WotsStorageSQLite

/// A database opened for a one-off command: the relay's repositories, and the database itself for what only a
/// backend can do (backups, copies).
struct OpenedDatabase: Sendable {
    enum Backend: Sendable {
        case sqlite(SQLiteDatabase)
        case postgres(PostgresDatabase)
    }

    var storage: RelayStorage
    var backend: Backend
}

extension StorageSettings {
    /// Opens and migrates the database, runs `body`, then closes it (PostgreSQL's pool runs only meanwhile).
    func withOpened<Result: Sendable>(
        logger: Logger,
        _ body: @Sendable (OpenedDatabase) async throws -> Result
    ) async throws -> Result {
        switch self.location {
        case .sqlite(let path):
            var configuration = SQLiteDatabase.Configuration()
            configuration.operationTimeout = self.operationTimeout
            configuration.minimumFreeSpace = self.minimumFreeSpace
            let database = try await SQLiteDatabase(path: path, configuration: configuration, logger: logger)
            defer { try? database.close() }
            return try await body(OpenedDatabase(storage: .sqlite(database), backend: .sqlite(database)))
        case .postgres(let url):
            var configuration = try PostgresDatabase.Configuration(url: url)
            configuration.operationTimeout = self.operationTimeout
            let database = PostgresDatabase(configuration: configuration, logger: logger)
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await database.run()
                    return nil
                }
                defer { group.cancelAll() }
                try await database.waitUntilReachable(within: self.startupTimeout)
                _ = try await database.migrate()
                return try await body(OpenedDatabase(storage: .postgres(database), backend: .postgres(database)))
            }
        }
    }
}
