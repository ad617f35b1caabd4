import Foundation
import GRDB
import Logging
import WotsCore
import WotsStorage
import WotsStorageSQLite

/// SQLite: the Wots repositories on one temporary file; the raw reference on a second file with the same schema and
/// the same durability (WAL, `synchronous = FULL`), written through GRDB directly.
final class SQLiteHarness: Harness {
    let title: String
    let directory: any DirectoryRepository
    let mailboxes: any MailboxRepository
    private let database: SQLiteDatabase
    private let path: String
    private let rawDatabase: SQLiteDatabase
    /// GRDB straight on the raw file: one writer connection, as `SQLiteDatabase` has.
    private let raw: DatabasePool

    init(folder: String, logger: Logger) async throws {
        self.path = folder + "/wots.sqlite"
        self.database = try await SQLiteDatabase(path: self.path, logger: logger)
        self.directory = SQLiteDirectoryRepository(database: self.database)
        self.mailboxes = SQLiteMailboxRepository(database: self.database)

        // SQLiteDatabase creates the same tables in the reference file; then GRDB writes them without Wots.
        let rawPath = folder + "/raw.sqlite"
        self.rawDatabase = try await SQLiteDatabase(path: rawPath, logger: logger)
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(5)
        self.raw = try DatabasePool(path: rawPath, configuration: configuration)
        try await self.raw.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let (version, synchronous, journal) = try await self.raw.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "?",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1,
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
            )
        }
        guard synchronous == 2, journal == "wal" else {
            throw BenchError("the raw SQLite connection runs journal_mode \(journal), synchronous \(synchronous)")
        }
        self.title = "SQLite \(version), WAL + synchronous=FULL, files in \(folder)"
    }

    func close() {
        try? self.raw.close()
        try? self.rawDatabase.close()
        try? self.database.close()
    }

    func fillDirectory(_ range: Range<Int>) async throws {
        // A separate connection without fsync: the fill prepares the data and is not what is measured.
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: self.path, configuration: configuration)
        defer { try? queue.close() }
        let signing = Data(Fixture.randomBytes(Fixture.publicKeySize))
        let encryption = Data(Fixture.randomBytes(Fixture.publicKeySize))
        let fingerprint = Data(Fixture.randomBytes(Fingerprint.byteCount))
        let registeredAt = Int64(Date().timeIntervalSince1970 * 1000)
        let chunk = 50_000
        for start in stride(from: range.lowerBound, to: range.upperBound, by: chunk) {
            let end = min(start + chunk, range.upperBound)
            try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = OFF")
                try db.inTransaction {
                    let insert = try db.makeStatement(
                        sql: """
                            INSERT INTO directory_entries
                                (token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms)
                            VALUES (?, ?, ?, ?, ?, ?)
                            """
                    )
                    for index in start..<end {
                        try insert.execute(arguments: [
                            Data(Fixture.token().bytes), Fixture.nickname(index), signing, encryption, fingerprint,
                            registeredAt,
                        ])
                    }
                    return .commit
                }
            }
        }
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    func nickname(atOffset offset: Int) async throws -> String {
        let path = self.path
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        guard
            let nickname = try await queue.read({ db in
                try String.fetchOne(
                    db,
                    sql:
                        "SELECT nickname FROM directory_entries WHERE deleted_at_ms IS NULL ORDER BY nickname LIMIT 1 OFFSET ?",
                    arguments: [offset]
                )
            })
        else {
            throw BenchError("the directory has no entry at offset \(offset)")
        }
        return nickname
    }

    private static let insertSQL = """
        INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at_ms, envelope)
        VALUES (?, ?, ?, ?, ?, ?)
        """

    func rawInsert(_ row: RawRow) async throws {
        try await self.raw.write { db in
            try db.cachedStatement(sql: Self.insertSQL).execute(arguments: Self.arguments(row))
        }
    }

    func rawInsert(batch rows: [RawRow]) async throws {
        try await self.raw.write { db in
            let insert = try db.cachedStatement(sql: Self.insertSQL)
            for row in rows {
                try insert.execute(arguments: Self.arguments(row))
            }
        }
    }

    private static func arguments(_ row: RawRow) -> StatementArguments {
        [
            row.recipient, row.sequence, row.sender, withUnsafeBytes(of: row.messageID.uuid) { Data($0) },
            Int64(row.receivedAt.timeIntervalSince1970 * 1000), row.envelope,
        ]
    }
}
