import Foundation
import GRDB
import Testing
import WotsCore
import WotsStorage

@testable import WotsStoragePostgres
@testable import WotsStorageSQLite

/// The operator tables arrive by a forward migration: a database made by the previous release keeps its accounts,
/// mail and sessions, and they can be suspended and invited against afterwards.
@Suite struct OperatorMigrationTests {
    @Test func anSQLiteFileFromVersionThreeMigratesWithItsData() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wots.sqlite").path
        let alice = TestValues.entry("alice")
        // The previous release's schema and its record of applied migrations, written as that release did.
        try await SQLiteTestBackend.makeFile(at: path, ofVersion: 3) { db in
            try db.execute(
                sql: """
                    INSERT INTO directory_entries
                        (token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(alice.token.bytes), alice.nickname.value, Data(alice.publicKeys.signing),
                    Data(alice.publicKeys.encryption), Data(alice.fingerprint.bytes),
                    alice.registeredAt.timeIntervalSince1970 * 1000,
                ]
            )
        }

        let database = try await SQLiteDatabase(path: path)
        defer { try? database.close() }
        #expect(try await database.appliedMigrationVersions().contains(4))
        expectSame(try await SQLiteDirectoryRepository(database: database).entry(token: alice.token), alice)
        let administration = SQLiteAdministrationRepository(database: database)
        try await administration.suspend(token: alice.token, at: TestValues.time())
        #expect(try await administration.suspension(of: alice.token) == TestValues.time())
        #expect(try await administration.statistics(now: TestValues.time(), days: 30).accounts == 1)
    }

    @Test func aPostgresDatabaseFromVersionFourMigratesWithItsData() async throws {
        try await withTwoNodes(migrated: false) { node, _ in
            #expect(try await node.migrate(through: 4) == [1, 2, 3, 4])
            let alice = TestValues.entry("alice")
            // Written as a version-4 relay wrote it: before the transparency log (version 7) existed.
            try await node.insertUnloggedEntry(alice, deleted: false)
            let session = TestValues.randomBytes(32)
            try await node.authentication.storeSession(
                hash: session,
                token: alice.token,
                expiresAt: TestValues.time(4_000_000_000_000)
            )
            #expect(try await node.migrate().first == 5)
            expectSame(try await node.directory.entry(token: alice.token), alice)
            try await node.administration.suspend(token: alice.token, at: TestValues.time())
            #expect(try await node.authentication.session(hash: session, now: TestValues.time()) == nil)
            #expect(try await node.administration.suspension(of: alice.token) == TestValues.time())
        }
    }
}
