import ArgumentParser
import Logging
import ServiceLifecycle
import WotsCore
import WotsRelay
import WotsStorage
import WotsStoragePostgres
import WotsStorageSQLite

/// Where the relay keeps its data, parsed from `sqlite:PATH` or `postgres://…`.
enum DatabaseLocation {
    case sqlite(path: String)
    case postgres(url: String)

    init(_ url: String) throws {
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw ValidationError("database \"sqlite:\" needs a path, as in sqlite:./wots-data/relay.sqlite")
            }
            self = .sqlite(path: path)
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(url: url)
        } else {
            throw ValidationError("database \"\(url.prefix(60))\" must start with sqlite: or postgres://")
        }
    }

    /// Opens the database. PostgreSQL's client runs as a service, so its migrations wait for `RelayService`.
    func open(bus: EventBus, logger: Logger) async throws -> DatabaseBackend {
        switch self {
        case .sqlite(let path):
            let database = try await SQLiteDatabase(path: path, logger: logger)
            let storage = RelayStorage(
                directory: SQLiteDirectoryRepository(database: database),
                privateRecords: SQLitePrivateRecordRepository(database: database),
                mailboxes: SQLiteMailboxRepository(database: database),
                authentication: SQLiteAuthenticationRepository(database: database),
                accounts: SQLiteAccountRepository(database: database),
                health: database.health,
                probe: { try await database.ping() }
            )
            logger.info("database ready", metadata: ["backend": "sqlite", "path": "\(path)"])
            return DatabaseBackend(storage: storage, services: [], prepare: {})
        case .postgres(let url):
            let database = try PostgresDatabase(url: url, logger: logger)
            let storage = RelayStorage(
                directory: database.directory,
                privateRecords: database.privateRecords,
                mailboxes: database.mailboxes,
                authentication: database.authentication,
                accounts: database.accounts,
                health: database.health,
                probe: { try await database.ping() }
            )
            let notifications = PostgresMailNotifications(database: database, eventBus: bus, logger: logger)
            return DatabaseBackend(
                storage: storage,
                services: [database, notifications],
                prepare: {
                    let applied = try await database.migrate()
                    logger.info("database ready", metadata: ["backend": "postgres", "migrationsApplied": "\(applied)"])
                }
            )
        }
    }
}

/// An opened database: the repositories, the services that keep it running, and what must happen before serving.
struct DatabaseBackend: Sendable {
    var storage: RelayStorage
    var services: [any Service]
    var prepare: @Sendable () async throws -> Void
}
