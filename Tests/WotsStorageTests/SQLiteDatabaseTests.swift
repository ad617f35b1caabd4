import Foundation
import GRDB
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// What only the SQLite backend promises: a file that keeps its data, migrations from `schema/sqlite`, group commit.
@Suite("SQLite database")
struct SQLiteDatabaseTests {
    /// Runs `body` with an empty temporary folder that is removed afterwards.
    private func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    @Test func dataSurvivesClosingAndReopeningTheFile() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("nested/wots.sqlite").path
            let alice = TestValues.entry("alice")
            let record = TestValues.record(alice.token)
            let envelope = TestValues.envelope(from: TestValues.token(), to: alice.token)

            let first = try await SQLiteDatabase(path: path)
            try await SQLiteDirectoryRepository(database: first).create(alice)
            try await SQLitePrivateRecordRepository(database: first).create(record)
            let receipt = try await SQLiteMailboxRepository(database: first).append(
                envelope,
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )
            let relayID = try await SQLiteAuthenticationRepository(database: first).relayID(storingIfAbsent: [1, 2, 3])
            try first.close()

            let second = try await SQLiteDatabase(path: path)
            expectSame(try await SQLiteDirectoryRepository(database: second).entry(nickname: alice.nickname), alice)
            #expect(try await SQLitePrivateRecordRepository(database: second).record(for: alice.token) == record)
            let mailboxes = SQLiteMailboxRepository(database: second)
            let messages = try await mailboxes.messages(for: alice.token, after: 0, limit: 10)
            #expect(messages.map(\.envelope) == [envelope])
            #expect(messages.map(\.sequence) == [receipt.sequence])
            let next = try await mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: alice.token),
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )
            #expect(next.sequence == receipt.sequence + 1)
            #expect(try await SQLiteAuthenticationRepository(database: second).relayID(storingIfAbsent: [9]) == relayID)
            try second.close()
        }
    }

    @Test func theDatabaseAndItsJournalFilesAreReadableByTheOwnerOnly() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("private/wots.sqlite").path
            let database = try await SQLiteDatabase(path: path)
            try await SQLiteDirectoryRepository(database: database).create(TestValues.entry("alice"))
            for file in [path, path + "-wal", path + "-shm"] {
                let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
            }
            let folderMode =
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("private").path)[
                    .posixPermissions
                ] as? Int
            #expect(folderMode == 0o700)
            try database.close()
        }
    }

    @Test func runningTheMigrationsTwiceIsHarmless() async throws {
        try await withFolder { folder in
            let path = folder.appendingPathComponent("wots.sqlite").path
            let first = try await SQLiteDatabase(path: path)
            let alice = TestValues.entry("alice")
            try await SQLiteDirectoryRepository(database: first).create(alice)
            try await first.migrate()
            // Even the SQL itself, replayed without its record, changes nothing.
            try await first.migrate(
                to: SQLiteDatabase.bundledMigrations().map { migration in
                    var replay = migration
                    replay.version += 1_000
                    return replay
                }
            )
            try first.close()

            let second = try await SQLiteDatabase(path: path)
            let versions = try await second.appliedMigrationVersions()
            let bundled = try SQLiteDatabase.bundledMigrations().map(\.version)
            #expect(versions == bundled + bundled.map { $0 + 1_000 })
            expectSame(try await SQLiteDirectoryRepository(database: second).entry(token: alice.token), alice)
            try second.close()
        }
    }

    @Test func theBundledMigrationsAreTheFilesInSchemaSQLite() throws {
        let schema = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("schema/sqlite")
        let files = try FileManager.default.contentsOfDirectory(atPath: schema.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        let bundled = try SQLiteDatabase.bundledMigrations()
        #expect(!bundled.isEmpty)
        #expect(bundled.map { $0.name + ".sql" } == files)
        for migration in bundled {
            let source = try String(contentsOf: schema.appendingPathComponent(migration.name + ".sql"), encoding: .utf8)
            #expect(migration.sql == source, "\(migration.name) in the bundle differs from schema/sqlite")
        }
        #expect(bundled.map(\.version) == Array(1...bundled.count))
    }

    @Test func walFullSynchronousForeignKeysALargerWriterCacheAndStatementJournalsInMemory() async throws {
        try await withFolder { folder in
            let database = try await SQLiteDatabase(path: folder.appendingPathComponent("wots.sqlite").path)
            let settings = try await database.write("reading pragmas") { db in
                (
                    try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                    try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                    try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                    try Int.fetchOne(db, sql: "PRAGMA cache_size"),
                    try Int.fetchOne(db, sql: "PRAGMA temp_store")
                )
            }
            #expect(settings.0 == "wal")
            #expect(settings.1 == 2)  // FULL
            #expect(settings.2 == 1)
            #expect(settings.3 == -32_768, "the writer keeps 32 MiB of pages, not SQLite's 2 MiB")
            #expect(settings.4 == 2, "statement journals stay in memory instead of spilling to a temporary file")
            try await database.ping()
            try database.close()
            await expectStorageError(.storageUnavailable) { try await database.ping() }
        }
    }

    @Test func directoryPagesWalkTheLiveNicknameIndex() async throws {
        try await withFolder { folder in
            let database = try await SQLiteDatabase(path: folder.appendingPathComponent("wots.sqlite").path)
            let plan = try await database.read("explaining the page query") { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        EXPLAIN QUERY PLAN
                        SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                        FROM directory_entries
                        WHERE deleted_at_ms IS NULL AND nickname > ?
                        ORDER BY nickname
                        LIMIT ?
                        """,
                    arguments: ["m", 101]
                ).map { $0["detail"] as String }
            }
            #expect(
                plan.contains { $0.contains("USING INDEX directory_entries_live_nickname (nickname>?)") },
                "\(plan)"
            )
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
            try database.close()
        }
    }

    @Test func aRecipientsAcknowledgementsAreFoundByRecipientAndTimeNotByRandomMessageID() async throws {
        try await withFolder { folder in
            let database = try await SQLiteDatabase(path: folder.appendingPathComponent("wots.sqlite").path)
            let (plan, columns) = try await database.read("explaining the deletion of an account's acknowledgements") {
                db in
                (
                    try Row.fetchAll(
                        db,
                        sql: "EXPLAIN QUERY PLAN DELETE FROM acknowledged_messages WHERE recipient = ?",
                        arguments: [TestValues.token().databaseBytes]
                    ).map { $0["detail"] as String },
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT name FROM pragma_index_info('acknowledged_messages_recipient_acknowledged_at')
                            ORDER BY seqno
                            """
                    )
                )
            }
            #expect(plan.contains { $0.contains("acknowledged_messages_recipient_acknowledged_at") }, "\(plan)")
            #expect(columns == ["recipient", "acknowledged_at_ms"], "a new entry lands at the end of its recipient's")
            try database.close()
        }
    }

    @Test func belowTheFreeSpaceReserveNewMailIsRefusedWhileWhatFreesSpaceGoesOn() async throws {
        try await withFolder { folder in
            var configuration = SQLiteDatabase.Configuration()
            configuration.minimumFreeSpace = Int64.max / 4
            let database = try await SQLiteDatabase(
                path: folder.appendingPathComponent("wots.sqlite").path,
                configuration: configuration
            )
            defer { try? database.close() }
            let mailboxes = SQLiteMailboxRepository(database: database)
            let bob = TestValues.entry("bob")
            let envelope = TestValues.envelope(from: TestValues.token(), to: bob.token)

            let refusal = await expectStorageError(.storageFull) {
                _ = try await mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 10)
            }
            #expect(refusal?.reason.contains("reserve") == true)
            await expectStorageError(.storageFull) {
                try await SQLiteDirectoryRepository(database: database).create(bob)
            }
            #expect(database.health.condition != .healthy)
            await expectStorageError(.storageFull) { try await database.ping() }

            // What frees space, or needs little, still works.
            try await SQLiteAuthenticationRepository(database: database).storeSession(
                hash: TestValues.randomBytes(32),
                token: bob.token,
                expiresAt: TestValues.time(4_000_000_000_000)
            )
            #expect(
                try await mailboxes.acknowledge([envelope.header.messageKey], for: bob.token, at: TestValues.time())
                    == []
            )
            try await mailboxes.deleteMailbox(of: bob.token)
        }
    }
}
