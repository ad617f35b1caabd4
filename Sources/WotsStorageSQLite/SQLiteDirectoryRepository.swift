import Foundation
import GRDB
public import WotsCore
public import WotsStorage
import WotsTransparency

/// The public directory in SQLite. Deleted accounts stay as tombstones (`deleted_at_ms` set), so the UNIQUE
/// nickname and token constraints keep them from ever being registered again.
public struct SQLiteDirectoryRepository: DirectoryRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func create(_ entry: DirectoryEntry, attestation: [UInt8]) async throws {
        try await self.database.requireFreeSpace()
        try await self.database.write("create a directory entry") { db in
            try Self.insert(entry, attestation: attestation, in: db)
        }
    }

    /// Adds an entry and its log leaf inside the caller's transaction.
    /// - Throws: `nickname_taken`, `token_taken`.
    static func insert(_ entry: DirectoryEntry, attestation: [UInt8], in db: Database) throws {
        let nicknameTaken = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM directory_entries WHERE nickname = ?)",
            arguments: [entry.nickname.value]
        )
        if nicknameTaken == true {
            throw WotsError(.nicknameTaken, "nickname \"\(entry.nickname)\" is taken")
        }
        let tokenTaken = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM directory_entries WHERE token = ?)",
            arguments: [entry.token.databaseBytes]
        )
        if tokenTaken == true {
            throw WotsError(.tokenTaken, "token \(entry.token) is registered already")
        }
        try db.execute(
            sql: """
                INSERT INTO directory_entries
                    (token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.token.databaseBytes, entry.nickname.value, Data(entry.publicKeys.signing),
                Data(entry.publicKeys.encryption), Data(entry.fingerprint.bytes),
                entry.registeredAt.millisecondsSince1970,
            ]
        )
        let event = DirectoryLogEvent(.registered, entry, at: entry.registeredAt, attestation: attestation)
        try SQLiteTransparencyLog.append(event, in: db)
    }

    public func undoCreate(token: Token) async throws {
        let now = Date()
        try await self.database.write("undo a directory entry") { db in
            _ = try Self.withdraw(token: token, at: now, in: db)
        }
    }

    /// Removes a live entry whose registration is being taken back, logging the withdrawal, inside the caller's
    /// transaction.
    /// - Returns: whether there was such an entry.
    static func withdraw(token: Token, at now: Date, in db: Database) throws -> Bool {
        let removed = try Row.fetchOne(
            db,
            sql: """
                DELETE FROM directory_entries WHERE token = ? AND deleted_at_ms IS NULL
                RETURNING token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                """,
            arguments: [token.databaseBytes]
        )
        guard let removed else { return false }
        try SQLiteTransparencyLog.append(DirectoryLogEvent(.withdrawn, try Self.entry(from: removed), at: now), in: db)
        return true
    }

    public func entry(nickname: Nickname) async throws -> DirectoryEntry? {
        try await self.database.read("read a directory entry") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                    FROM directory_entries WHERE nickname = ? AND deleted_at_ms IS NULL
                    """,
                arguments: [nickname.value]
            ).map(Self.entry(from:))
        }
    }

    public func entry(token: Token) async throws -> DirectoryEntry? {
        try await self.database.read("read a directory entry") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                    FROM directory_entries WHERE token = ? AND deleted_at_ms IS NULL
                    """,
                arguments: [token.databaseBytes]
            ).map(Self.entry(from:))
        }
    }

    public func page(limit: PageLimit, after cursor: WotsCore.Cursor?) async throws -> Page<DirectoryEntry> {
        try await self.database.read("read a directory page") { db in
            // One row more than asked says whether another page follows. The empty string sorts before every nickname.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                    FROM directory_entries
                    WHERE deleted_at_ms IS NULL AND nickname > ?
                    ORDER BY nickname
                    LIMIT ?
                    """,
                arguments: [cursor?.lastNickname.value ?? "", limit.value + 1]
            )
            let entries = try rows.prefix(limit.value).map(Self.entry(from:))
            let next = rows.count > limit.value ? entries.last.map { WotsCore.Cursor(after: $0.nickname) } : nil
            return Page(entries: entries, next: next)
        }
    }

    public func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        attestation: [UInt8]
    ) async throws -> DirectoryEntry {
        let now = Date()
        return try await self.database.write("rotate keys") { db in
            guard
                let entry = try Self.rotateKeys(
                    token: token,
                    publicKeys: publicKeys,
                    fingerprint: fingerprint,
                    attestation: attestation,
                    at: now,
                    in: db
                )
            else { throw WotsError(.notFound, "token \(token) has no directory entry") }
            return entry
        }
    }

    public func delete(token: Token) async throws {
        let now = Date()
        try await self.database.write("delete a directory entry") { db in
            guard try Self.tombstone(token: token, at: now, in: db) != nil else {
                throw WotsError(.notFound, "token \(token) has no directory entry")
            }
        }
    }

    /// Replaces a live entry's keys and logs it inside the caller's transaction; nil when there is no live entry.
    static func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        attestation: [UInt8],
        at now: Date,
        in db: Database
    ) throws -> DirectoryEntry? {
        let updated = try Row.fetchOne(
            db,
            sql: """
                UPDATE directory_entries SET signing_key = ?, encryption_key = ?, fingerprint = ?
                WHERE token = ? AND deleted_at_ms IS NULL
                RETURNING token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                """,
            arguments: [
                Data(publicKeys.signing), Data(publicKeys.encryption), Data(fingerprint.bytes), token.databaseBytes,
            ]
        ).map(Self.entry(from:))
        if let updated {
            try SQLiteTransparencyLog.append(
                DirectoryLogEvent(.keysRotated, updated, at: now, attestation: attestation),
                in: db
            )
        }
        return updated
    }

    /// Turns a live entry into a tombstone and logs it inside the caller's transaction; returns the entry as it was,
    /// nil when there is no live entry.
    static func tombstone(token: Token, at now: Date, in db: Database) throws -> DirectoryEntry? {
        let deleted = try Row.fetchOne(
            db,
            sql: """
                UPDATE directory_entries SET deleted_at_ms = ? WHERE token = ? AND deleted_at_ms IS NULL
                RETURNING token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                """,
            arguments: [now.millisecondsSince1970, token.databaseBytes]
        ).map(Self.entry(from:))
        if let deleted {
            try SQLiteTransparencyLog.append(DirectoryLogEvent(.deleted, deleted, at: now), in: db)
        }
        return deleted
    }

    /// The live entry of `token` inside the caller's transaction.
    static func liveEntry(token: Token, in db: Database) throws -> DirectoryEntry? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT token, nickname, signing_key, encryption_key, fingerprint, registered_at_ms
                FROM directory_entries WHERE token = ? AND deleted_at_ms IS NULL
                """,
            arguments: [token.databaseBytes]
        ).map(Self.entry(from:))
    }

    public func count() async throws -> Int {
        try await self.database.read("count directory entries") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM directory_entries WHERE deleted_at_ms IS NULL") ?? 0
        }
    }

    /// Decodes a row holding token, nickname, signing_key, encryption_key, fingerprint and registered_at_ms.
    static func entry(from row: Row) throws -> DirectoryEntry {
        let token = try Token(databaseBytes: row["token"])
        do {
            return DirectoryEntry(
                token: token,
                nickname: try Nickname(naming: row["nickname"] as String),
                publicKeys: PublicKeys(
                    signing: [UInt8](row["signing_key"] as Data),
                    encryption: [UInt8](row["encryption_key"] as Data)
                ),
                fingerprint: try Fingerprint(bytes: [UInt8](row["fingerprint"] as Data)),
                registeredAt: Date(millisecondsSince1970: row["registered_at_ms"])
            )
        } catch {
            throw WotsError(.storageCorrupted, "the directory entry of \(token) could not be decoded: \(error)")
        }
    }
}
