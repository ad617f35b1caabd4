import ArgumentParser
import Logging
import ServiceLifecycle
import WotsCore
import WotsRelay
import WotsStorage
import WotsStoragePostgres
import WotsStorageSQLite

/// Where the relay keeps its data, parsed from `sqlite:PATH` or `postgres://…`.
enum DatabaseLocation: Sendable {
    case sqlite(path: String)
    case postgres(url: String)

    init(_ url: String) throws {
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw WotsError(
                    .invalidArgument,
                    "database \"sqlite:\" needs a path, as in sqlite:./wots-data/relay.sqlite"
                )
            }
            self = .sqlite(path: path)
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            _ = try PostgresDatabase.Configuration(url: url)
            self = .postgres(url: url)
        } else {
            // The URL itself is not repeated: it may hold a password.
            let scheme = url.split(separator: ":", maxSplits: 1).first.map { "\"\($0.prefix(20)):\"" } ?? "it"
            throw WotsError(.invalidArgument, "the database URL starts with \(scheme); use sqlite:PATH or postgres://…")
        }
    }
}

/// The database and how the relay treats it.
struct StorageSettings: Sendable {
    var location: DatabaseLocation
    var minimumFreeSpace: Int64
    var operationTimeout: Duration
    var startupTimeout: Duration

    func validated() throws -> StorageSettings {
        guard self.operationTimeout >= .milliseconds(100) else {
            throw WotsError(.invalidArgument, "--database-timeout must be at least 100ms")
        }
        guard self.startupTimeout >= .seconds(1) else {
            throw WotsError(.invalidArgument, "--startup-timeout must be at least 1s")
        }
        return self
    }

    /// Opens the database. PostgreSQL's client runs as a service, so its migrations wait for `RelayService`.
    func open(bus: EventBus, logger: Logger) async throws -> DatabaseBackend {
        switch self.location {
        case .sqlite(let path):
            var configuration = SQLiteDatabase.Configuration()
            configuration.operationTimeout = self.operationTimeout
            configuration.minimumFreeSpace = self.minimumFreeSpace
            let database = try await SQLiteDatabase(path: path, configuration: configuration, logger: logger)
            logger.info("database ready", metadata: ["backend": "sqlite", "path": "\(path)"])
            // Tells the relay about suspensions and deletions `wots-relay admin` makes from another process.
            let changes = SQLiteAccountChangeFeed(database: database, bus: bus, logger: logger)
            return DatabaseBackend(
                storage: .sqlite(database),
                services: [changes],
                prepare: {},
                finish: { [operationTimeout = self.operationTimeout] in
                    try await database.finish(within: operationTimeout)
                }
            )
        case .postgres(let url):
            var configuration = try PostgresDatabase.Configuration(url: url)
            configuration.operationTimeout = self.operationTimeout
            let database = PostgresDatabase(configuration: configuration, logger: logger)
            let notifications = PostgresMailNotifications(database: database, eventBus: bus, logger: logger)
            return DatabaseBackend(
                storage: .postgres(database),
                services: [database, notifications],
                prepare: { [startupTimeout = self.startupTimeout, server = "\(configuration)"] in
                    try await database.waitUntilReachable(within: startupTimeout)
                    let applied = try await database.migrate()
                    logger.info(
                        "database ready",
                        metadata: ["backend": "postgres", "server": "\(server)", "migrationsApplied": "\(applied)"]
                    )
                }
            )
        }
    }
}

extension RelayStorage {
    static func sqlite(_ database: SQLiteDatabase) -> RelayStorage {
        RelayStorage(
            directory: SQLiteDirectoryRepository(database: database),
            privateRecords: SQLitePrivateRecordRepository(database: database),
            mailboxes: SQLiteMailboxRepository(database: database),
            authentication: SQLiteAuthenticationRepository(database: database),
            accounts: SQLiteAccountRepository(database: database),
            administration: SQLiteAdministrationRepository(database: database),
            log: SQLiteTransparencyLog(database: database),
            blobs: SQLiteBlobRepository(database: database),
            health: database.health,
            probe: { try await database.ping() }
        )
    }

    static func postgres(_ database: PostgresDatabase) -> RelayStorage {
        RelayStorage(
            directory: database.directory,
            privateRecords: database.privateRecords,
            mailboxes: database.mailboxes,
            authentication: database.authentication,
            accounts: database.accounts,
            administration: database.administration,
            log: PostgresTransparencyLog(database: database),
            blobs: database.blobs,
            health: database.health,
            probe: { try await database.ping() }
        )
    }
}

/// An opened database: the repositories, the services that keep it running, and what must happen before serving.
struct DatabaseBackend: Sendable {
    var storage: RelayStorage
    var services: [any Service]
    var prepare: @Sendable () async throws -> Void
    /// Run once the relay stopped: writes what is left and closes the database.
    var finish: @Sendable () async throws -> Void = {}
}
