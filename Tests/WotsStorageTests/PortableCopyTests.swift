import Foundation
import GRDB
import Testing
import WotsCore
import WotsStorage

@testable import WotsStoragePostgres
@testable import WotsStorageSQLite

/// The table lists `admin migrate` and `admin verify-backup` rely on, and the copy from SQLite into PostgreSQL.
@Suite("Portable copy")
struct PortableCopyTests {
    static let farExpiry: UInt64 = 4_000_000_000_000

    @Test func everyTableOfAFreshSQLiteDatabaseIsCopiedOrLeftBehindOnPurpose() async throws {
        try await withSQLite { database in
            let reader = try database.portableSnapshot()
            try await expectListsCover(reader, postgres: false)
        }
    }

    @Test func everyTableOfAFreshPostgresDatabaseIsCopiedOrLeftBehindOnPurpose() async throws {
        try await withPostgres { database in
            try await expectListsCover(database, postgres: true)
        }
    }

    @Test func aCopyIntoPostgresReadsBackRowForRowAndTheRepositoriesServeIt() async throws {
        try await withSQLite { source in
            let bob = TestValues.token()
            let held = try await populate(source, recipient: bob)
            try await withPostgres { target in
                // Two rows a page, so every table with more than two rows is read and written across page keys.
                let counts = try await target.load(
                    PortableTable.sessionFree,
                    from: try source.portableSnapshot(),
                    timeout: .seconds(60),
                    pageSize: 2
                )
                for table in PortableTable.sessionFree {
                    let expected = try await allRows(of: table, in: try source.portableSnapshot())
                    let copied = try await allRows(of: table, in: target)
                    #expect(copied == expected, "\(table.name)")
                    #expect(counts[table.name] == expected.count, "\(table.name)")
                }
                #expect(try await target.mailboxes.messages(for: bob, after: 0, limit: 100) == held)
                let next = try await target.mailboxes.append(
                    TestValues.envelope(from: TestValues.token(), to: bob),
                    receivedAt: TestValues.time(),
                    mailboxCapacity: 100
                )
                // Nine were appended (two since acknowledged): the sequence goes on after the ninth, never reusing one.
                #expect(held.count == 7)
                #expect(next.sequence == 10)
                #expect(try await target.directory.count() == 2)
                let vanishing = try await target.mailboxes.deleteExpired(
                    at: TestValues.time(Int64(Self.farExpiry)),
                    limit: 100
                )
                #expect(vanishing == 2, "the copied expiries still work")
                let blob = try #require(try await target.blobs.blob(try BlobID(bytes: Array(repeating: 7, count: 16))))
                #expect(blob.isComplete && blob.acknowledged.count == 1)
                #expect(try await target.blobs.chunk(of: blob.id, containing: 2) == BlobChunk(offset: 2, bytes: [2]))
                let disappearing = try await target.blobs.blob(try BlobID(bytes: Array(repeating: 8, count: 16)))
                #expect(disappearing?.latestExpiry == TestValues.time(1_800_000_000_000))
                #expect(disappearing?.expiresAt == TestValues.time(1_800_000_000_000))
            }
        }
    }

    @Test func loadingIntoADatabaseThatHoldsRowsIsRefusedAndAddsNothing() async throws {
        try await withSQLite { source in
            _ = try await populate(source, recipient: TestValues.token())
            try await withPostgres { target in
                let carol = TestValues.entry("carol")
                try await target.directory.create(carol)
                await #expect(throws: WotsError.self) {
                    _ = try await target.load(
                        PortableTable.sessionFree,
                        from: try source.portableSnapshot(),
                        timeout: .seconds(60)
                    )
                }
                #expect(try await target.directory.count() == 1)
                #expect(try await allRows(of: PortableTable.sessionFree[3], in: target).isEmpty)
            }
        }
    }

    @Test func aColumnAMigrationAddedIsReportedUncopied() async throws {
        try await withSQLite { database in
            try await database.pool.write { db in
                try db.execute(sql: "ALTER TABLE directory_entries ADD COLUMN suspended_at_ms INTEGER")
            }
            let found = try await PortableTable.uncopied(in: try database.portableSnapshot(), postgres: false)
            #expect(found == ["column directory_entries.suspended_at_ms"])
        }
    }

    @Test func aTableInNeitherListIsReportedUnknown() {
        #expect(PortableTable.unknown(among: ["directory_entries", "auth_sessions", "push_tokens"]) == ["push_tokens"])
    }
}

/// Every table and column in `source` is copied or left behind on purpose, every listed table exists, and each listed
/// column reads.
private func expectListsCover(_ source: some PortableRowSource, postgres: Bool) async throws {
    #expect(try await PortableTable.uncopied(in: source, postgres: postgres) == [])
    let names = try await source.tableNames()
    for table in PortableTable.sessionFree {
        #expect(names.contains(table.name), "\(table.name)")
        _ = try await source.rows(of: table, after: nil, limit: 1)
    }
}

private func allRows(of table: PortableTable, in source: some PortableRowSource) async throws -> Set<PortableRow> {
    var rows = Set<PortableRow>()
    try await source.forEachPage(of: table, pageSize: 3) { page in rows.formUnion(page) }
    return rows
}

/// Three accounts (one deleted) and their records; nine messages to `recipient` from two senders, of which two
/// are acknowledged and seven wait; the relay's id and a secret. Returns what waits for `recipient`.
private func populate(_ database: SQLiteDatabase, recipient: Token) async throws -> [MailboxMessage] {
    let directory = SQLiteDirectoryRepository(database: database)
    let records = SQLitePrivateRecordRepository(database: database)
    let mailboxes = SQLiteMailboxRepository(database: database)
    let authentication = SQLiteAuthenticationRepository(database: database)
    let alice = TestValues.entry("alice")
    let gone = TestValues.entry("gone")
    for entry in [alice, gone, TestValues.entry("bob", token: recipient)] {
        try await directory.create(entry)
        try await records.create(TestValues.record(entry.token))
    }
    try await directory.delete(token: gone.token)
    var acknowledged: [MessageKey] = []
    for index in 0..<9 {
        let sender = index % 2 == 0 ? alice.token : gone.token
        // Three ask to vanish in 2096; the acknowledged one of them takes its expiry row with it.
        let envelope =
            [0, 3, 4].contains(index)
            ? TestValues.envelope(from: sender, to: recipient, expiresAt: PortableCopyTests.farExpiry)
            : TestValues.envelope(from: sender, to: recipient)
        _ = try await mailboxes.append(
            envelope,
            receivedAt: TestValues.time(1_700_000_000_000 + Int64(index)),
            mailboxCapacity: 100
        )
        if index < 2 { acknowledged.append(envelope.header.messageKey) }
    }
    _ = try await mailboxes.acknowledge(acknowledged, for: recipient, at: TestValues.time())
    let blobs = SQLiteBlobRepository(database: database)
    let blob = NewBlob(
        id: try BlobID(bytes: Array(repeating: 7, count: 16)),
        uploader: alice.token,
        size: 3,
        recipients: [recipient, gone.token],
        createdAt: TestValues.time(),
        expiresAt: TestValues.time(1_900_000_000_000)
    )
    try await blobs.create(blob, quota: 100)
    for offset in 0..<3 {
        _ = try await blobs.append([UInt8(offset)], to: blob.id, at: Int64(offset), completedExpiry: blob.expiresAt)
    }
    _ = try await blobs.acknowledge(blob.id, by: gone.token)
    let disappearing = NewBlob(
        id: try BlobID(bytes: Array(repeating: 8, count: 16)),
        uploader: alice.token,
        size: 1,
        recipients: [recipient],
        createdAt: TestValues.time(),
        expiresAt: TestValues.time(1_900_000_000_000),
        latestExpiry: TestValues.time(1_800_000_000_000)
    )
    try await blobs.create(disappearing, quota: 100)
    _ = try await authentication.relayID(storingIfAbsent: TestValues.randomBytes(16))
    _ = try await authentication.relaySecret(named: "challenge-mac", storingIfAbsent: TestValues.randomBytes(32))
    return try await mailboxes.messages(for: recipient, after: 0, limit: 100)
}

private func withSQLite(_ body: (SQLiteDatabase) async throws -> Void) async throws {
    let folder = try SQLiteTestBackend.makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = try await SQLiteDatabase(path: folder.appendingPathComponent("source.sqlite").path)
    defer { try? database.close() }
    try await body(database)
}

private func withPostgres(_ body: (PostgresDatabase) async throws -> Void) async throws {
    let testDatabase = try await PostgresTestBackend.createDatabase()
    let (database, running) = PostgresTestBackend.start(testDatabase.configuration)
    do {
        try await database.migrate()
        try await body(database)
    } catch {
        running.cancel()
        await running.value
        try? await testDatabase.drop()
        throw error
    }
    running.cancel()
    await running.value
    try await testDatabase.drop()
}
