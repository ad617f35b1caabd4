import Foundation
import GRDB
import Logging
import WotsCore
import WotsStorage

extension SQLiteDatabase {
    /// One numbered SQL file from `schema/sqlite`.
    struct Migration: Sendable {
        var version: Int
        var name: String
        var sql: String
    }

    /// The migrations shipped with this build (`schema/sqlite/NNNN_name.sql`), in version order.
    static func bundledMigrations() throws -> [Migration] {
        guard let folder = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw WotsError(.storageUnavailable, "the SQLite migrations are missing from the WotsStorageSQLite bundle")
        }
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        } catch {
            throw WotsError(.storageUnavailable, "cannot list the SQLite migrations in \(folder.path)")
        }
        let migrations = try files.filter { $0.pathExtension == "sql" }.map { file in
            let name = file.deletingPathExtension().lastPathComponent
            guard let version = name.split(separator: "_").first.flatMap({ Int($0) }) else {
                throw WotsError(
                    .storageUnavailable,
                    "migration file \(file.lastPathComponent) does not start with a number"
                )
            }
            let sql: String
            do {
                sql = try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw WotsError(.storageUnavailable, "cannot read migration \(file.lastPathComponent)")
            }
            return Migration(version: version, name: name, sql: sql)
        }.sorted { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw WotsError(
                .storageUnavailable,
                "migrations \(previous.name) and \(next.name) share version \(next.version)"
            )
        }
        return migrations
    }

    /// Applies, in order, each bundled migration not yet recorded in `schema_migrations`, each in its own
    /// transaction together with its record, so running this again (or from a second process) changes nothing.
    func migrate() async throws {
        try await self.migrate(to: Self.bundledMigrations())
    }

    /// The versions recorded in `schema_migrations`, in order.
    func appliedMigrationVersions() async throws -> [Int] {
        try await self.read("read schema_migrations") { db in
            try Int.fetchAll(db, sql: "SELECT version FROM schema_migrations ORDER BY version")
        }
    }

    func migrate(to migrations: [Migration]) async throws {
        let logger = self.logger
        do {
            try await self.pool.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS schema_migrations (
                            version       INTEGER NOT NULL PRIMARY KEY,
                            name          TEXT    NOT NULL,
                            applied_at_ms INTEGER NOT NULL
                        )
                        """
                )
                for migration in migrations {
                    // IMMEDIATE takes the write lock before the check, so two processes cannot both apply it.
                    try db.inTransaction(.immediate) {
                        let applied = try Bool.fetchOne(
                            db,
                            sql: "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)",
                            arguments: [migration.version]
                        )
                        if applied == true { return .commit }
                        try db.execute(sql: migration.sql)
                        try db.execute(
                            sql: "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)",
                            arguments: [migration.version, migration.name, Date().millisecondsSince1970]
                        )
                        logger.info("applied SQLite migration", metadata: ["migration": "\(migration.name)"])
                        return .commit
                    }
                }
            }
        } catch {
            throw Self.storageError(error, while: "apply migrations")
        }
    }
}
