import Foundation
import GRDB
public import Logging
import WotsCore
import WotsStorage

/// One SQLite database file shared by the SQLite repositories: a WAL-mode connection pool (one writer, concurrent
/// readers) with the `schema/sqlite` migrations applied.
///
/// Writes run with `synchronous = FULL`, so a write that returned survives `kill -9` and power loss.
public final class SQLiteDatabase: Sendable {
    /// How the database is opened.
    public struct Configuration: Sendable {
        /// How long a connection waits for another process's lock before failing. Default 5 seconds.
        public var busyTimeout: Duration = .seconds(5)
        /// How many read-only connections may run at once beside the writer. Default 4.
        public var maximumReaderCount: Int = 4

        /// The defaults.
        public init() {}
    }

    /// The database file.
    public let path: String
    let pool: DatabasePool
    let logger: Logger

    /// Opens (creating if needed) the database file and applies every migration not applied yet.
    /// - Parameters:
    ///   - path: the database file; it and missing parent folders are created readable by the owner only.
    ///   - configuration: timeouts and pool size; see `Configuration` for the defaults.
    ///   - logger: where migrations are reported.
    /// - Throws: `WotsError` `storage_unavailable` when the file cannot be opened or a migration fails.
    public init(
        path: String,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "wots.storage.sqlite")
    ) async throws {
        self.path = path
        self.logger = logger
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw WotsError(
                .storageUnavailable,
                "cannot create the database folder \(folder): \(error.localizedDescription)"
            )
        }
        // SQLite gives the -wal and -shm files the database file's mode, so creating it owner-only covers all three.
        if !FileManager.default.fileExists(atPath: path),
            !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        {
            throw WotsError(.storageUnavailable, "cannot create the database file \(path)")
        }
        var grdb = GRDB.Configuration()
        grdb.foreignKeysEnabled = true
        let timeout = configuration.busyTimeout.components
        grdb.busyMode = .timeout(Double(timeout.seconds) + Double(timeout.attoseconds) / 1e18)
        grdb.maximumReaderCount = max(1, configuration.maximumReaderCount)
        do {
            self.pool = try DatabasePool(path: path, configuration: grdb)
            // FULL makes each WAL commit fsync before returning, so an acknowledged write survives power loss.
            // Set on the pool's one writer connection after opening: turning WAL on sets it back to NORMAL.
            try await self.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw SQLiteDatabase.storageError(error, while: "opening \(path)")
        }
        try await self.migrate()
    }

    /// Closes every connection. Later calls on the repositories fail with `WotsError` `storage_unavailable`.
    public func close() throws {
        do {
            try self.pool.close()
        } catch {
            throw SQLiteDatabase.storageError(error, while: "closing the database")
        }
    }

    /// Checks that the database answers a query (for readiness probes).
    /// - Throws: `WotsError` `storage_unavailable` when it does not.
    public func ping() async throws {
        _ = try await self.read("pinging the database") { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }
}
