import Foundation
import GRDB
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// Fresh SQLite repositories on a real file in a new temporary folder, removed by `tearDown`.
enum SQLiteTestBackend {
    /// A new, empty temporary folder.
    static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A database file at `path` as a release of schema `version` left it: its migrations applied and recorded as
    /// that release did, then `fill` run in the same transaction.
    static func makeFile(
        at path: String,
        ofVersion version: Int,
        _ fill: @escaping @Sendable (Database) throws -> Void = { _ in }
    ) async throws {
        let previous = try SQLiteDatabase.bundledMigrations().filter { $0.version <= version }
        precondition(previous.map(\.version) == Array(1...version), "migrations 1 to \(version) are bundled")
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE schema_migrations (
                        version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)
                    """
            )
            for migration in previous {
                try db.execute(sql: migration.sql)
                try db.execute(
                    sql: "INSERT INTO schema_migrations VALUES (?, ?, 0)",
                    arguments: [migration.version, migration.name]
                )
            }
            try fill(db)
        }
        try queue.close()
    }

    static func make() async throws -> StorageBackend {
        let folder = try self.makeFolder()
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("wots.sqlite").path)
        return StorageBackend(
            directory: SQLiteDirectoryRepository(database: database),
            privateRecords: SQLitePrivateRecordRepository(database: database),
            mailboxes: SQLiteMailboxRepository(database: database),
            authentication: SQLiteAuthenticationRepository(database: database),
            accounts: SQLiteAccountRepository(database: database),
            administration: SQLiteAdministrationRepository(database: database),
            log: SQLiteTransparencyLog(database: database),
            blobs: SQLiteBlobRepository(database: database),
            insertUnloggedEntry: { entry, deleted in
                try await database.pool.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO directory_entries (token, nickname, signing_key, encryption_key, fingerprint,
                                registered_at_ms, deleted_at_ms)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            Data(entry.token.bytes), entry.nickname.value, Data(entry.publicKeys.signing),
                            Data(entry.publicKeys.encryption), Data(entry.fingerprint.bytes),
                            entry.registeredAt.millisecondsSince1970,
                            deleted ? entry.registeredAt.millisecondsSince1970 + 1 : nil,
                        ]
                    )
                }
            },
            failSessionDeletions: {
                try await database.pool.write { db in
                    try db.execute(
                        sql:
                            "CREATE TRIGGER sabotage BEFORE DELETE ON auth_sessions BEGIN SELECT RAISE(ABORT, 'no'); END"
                    )
                }
            },
            tearDown: {
                try database.close()
                try FileManager.default.removeItem(at: folder)
            }
        )
    }
}
