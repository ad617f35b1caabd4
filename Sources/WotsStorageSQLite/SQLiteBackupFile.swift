import Foundation
import GRDB
import WotsCore
import WotsStorage

/// A backup file opened read-only for `admin verify-backup`: nothing is created, migrated or written.
package struct SQLiteBackupFile: Sendable {
    /// The first 16 bytes of every SQLite 3 database file.
    static let header = Array("SQLite format 3\u{0}".utf8)

    package let path: String
    /// Its size in bytes.
    package let size: Int64
    let queue: DatabaseQueue

    /// Opens `path` read-only.
    /// - Throws: `invalid_argument` when it is missing or empty; `storage_corrupted` when it is not a SQLite file.
    package init(path: String) throws {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw WotsError(.invalidArgument, "\(path) does not exist or cannot be read")
        }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: Self.header.count)).map { Array($0) } ?? []
        self.size = Int64((try? handle.seekToEnd()) ?? 0)
        guard self.size > 0 else { throw WotsError(.storageCorrupted, "\(path) is empty") }
        guard start == Self.header else {
            throw WotsError(.storageCorrupted, "\(path) is not a SQLite database (no \"SQLite format 3\" header)")
        }
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        do {
            self.queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw WotsError(
                .storageCorrupted,
                "\(path) cannot be opened as a SQLite database (\(Self.describe(error)))"
            )
        }
    }

    /// Its tables, read as portable rows.
    package var rows: SQLitePortableReader { SQLitePortableReader(reader: self.queue) }

    /// What `PRAGMA integrity_check` finds wrong (empty when it says `ok`).
    package func integrityProblems() async throws -> [String] {
        do {
            let lines = try await self.queue.read { db in
                try String.fetchAll(db, sql: "PRAGMA integrity_check(20)")
            }
            return lines == ["ok"] ? [] : lines
        } catch {
            return ["SQLite cannot read it (\(Self.describe(error)))"]
        }
    }

    /// The schema versions recorded in the file, or nil when it has no `schema_migrations` (not a Wots database).
    package func schemaVersions() async throws -> [Int]? {
        do {
            return try await self.queue.read { db in
                guard try db.tableExists("schema_migrations") else { return nil }
                return try Int.fetchAll(db, sql: "SELECT version FROM schema_migrations ORDER BY version")
            }
        } catch {
            throw WotsError(.storageCorrupted, "\(self.path): cannot read its schema (\(Self.describe(error)))")
        }
    }

    /// The schema versions this build ships.
    package static func knownSchemaVersions() throws -> [Int] {
        try SQLiteDatabase.bundledMigrations().map(\.version)
    }

    package func close() {
        try? self.queue.close()
    }

    /// SQLite's result code and message for a file's own failure; the message names no bound values here.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "SQLite error \(error.resultCode.rawValue): \(error.message ?? "no message")"
        }
        return "\(type(of: error))"
    }
}
