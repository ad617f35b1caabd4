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
