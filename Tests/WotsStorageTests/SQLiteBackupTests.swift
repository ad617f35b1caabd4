import Foundation
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// `SQLiteDatabase.backup(to:)` and the read-only `SQLiteBackupFile` behind `admin backup` and `admin verify-backup`.
@Suite("SQLite backups")
struct SQLiteBackupTests {
    @Test func aBackupIsOwnerOnlyAndHoldsTheSameRows() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("live.sqlite").path)
        defer { try? database.close() }
        let directory = SQLiteDirectoryRepository(database: database)
        for nickname in ["alice", "bob", "carol"] { try await directory.create(TestValues.entry(nickname)) }
        let target = folder.appendingPathComponent("backup.sqlite").path

        let bytes = try await database.backup(to: target)

        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(bytes == attributes[.size] as? Int64)
        let file = try SQLiteBackupFile(path: target)
        defer { file.close() }
        #expect(try await file.integrityProblems() == [])
        #expect(try await file.schemaVersions() == (try SQLiteBackupFile.knownSchemaVersions()))
        let entries = PortableTable.sessionFree[0]
        let copied = try await file.rows.rows(of: entries, after: nil, limit: 10)
        let live = try await database.portableSnapshot().rows(of: entries, after: nil, limit: 10)
        #expect(copied.count == 3 && copied == live)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.contains("partial")
        }
        #expect(leftovers == [])
    }

    @Test func aBackupNeverOverwritesAFile() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("live.sqlite").path)
        defer { try? database.close() }
        let target = folder.appendingPathComponent("backup.sqlite").path
        #expect(FileManager.default.createFile(atPath: target, contents: Data("keep me".utf8)))

        await #expect(throws: WotsError.self) { _ = try await database.backup(to: target) }

        #expect(FileManager.default.contents(atPath: target) == Data("keep me".utf8))
    }

    @Test func aFileThatIsNotSQLiteIsRefusedOnOpening() throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.txt").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096)))

        let error = #expect(throws: WotsError.self) { _ = try SQLiteBackupFile(path: path) }
        #expect(error?.code == .storageCorrupted)
    }
}
