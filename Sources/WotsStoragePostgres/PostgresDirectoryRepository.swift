import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

/// The public directory in PostgreSQL. Deleted accounts stay as tombstones; pages use the nickname index.
public struct PostgresDirectoryRepository: DirectoryRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func create(_ entry: DirectoryEntry) async throws {
        let taken = [
            "directory_entries_nickname_key": WotsError(
                .nicknameTaken,
                "nickname \"\(entry.nickname)\" is taken"
            ),
            "directory_entries_pkey": WotsError(.tokenTaken, "token \(entry.token) is already registered"),
        ]
        try await self.database.withErrorMapping("register \"\(entry.nickname)\"", uniqueViolations: taken) {
            try await self.database.client.query(
                """
                INSERT INTO directory_entries (token, nickname, signing_key, encryption_key, fingerprint, registered_at)
                VALUES (\(Data(entry.token.bytes)), \(entry.nickname.value), \(Data(entry.publicKeys.signing)),
                    \(Data(entry.publicKeys.encryption)), \(Data(entry.fingerprint.bytes)),
                    \(PostgresTime.stored(entry.registeredAt)))
                """,
                logger: self.database.queryLogger
            )
        }
    }

    public func undoCreate(token: Token) async throws {
        try await self.database.withErrorMapping("undo a registration") {
            try await self.database.client.query(
                "DELETE FROM directory_entries WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL",
                logger: self.database.queryLogger
            )
        }
    }

    public func entry(nickname: Nickname) async throws -> DirectoryEntry? {
        try await self.fetch(
            "look up \"\(nickname)\"",
            "SELECT \(unescaped: Self.columns) FROM directory_entries WHERE nickname = \(nickname.value) AND deleted_at IS NULL"
        ).first
    }

    public func entry(token: Token) async throws -> DirectoryEntry? {
        try await self.fetch(
            "look up a token",
            "SELECT \(unescaped: Self.columns) FROM directory_entries WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL"
        ).first
    }

    public func page(limit: PageLimit, after cursor: Cursor?) async throws -> Page<DirectoryEntry> {
        // One row more than asked says whether another page follows.
        let fetchCount = limit.value + 1
        let rows: [DirectoryEntry]
        if let cursor {
            rows = try await self.fetch(
                "list the directory",
                """
                SELECT \(unescaped: Self.columns) FROM directory_entries
                WHERE deleted_at IS NULL AND nickname > \(cursor.lastNickname.value)
                ORDER BY nickname LIMIT \(fetchCount)
                """
            )
        } else {
            rows = try await self.fetch(
                "list the directory",
                """
                SELECT \(unescaped: Self.columns) FROM directory_entries
                WHERE deleted_at IS NULL ORDER BY nickname LIMIT \(fetchCount)
                """
            )
        }
        guard rows.count > limit.value else { return Page(entries: rows, next: nil) }
        let entries = Array(rows.prefix(limit.value))
        return Page(entries: entries, next: entries.last.map { Cursor(after: $0.nickname) })
    }

    public func rotateKeys(token: Token, publicKeys: PublicKeys, fingerprint: Fingerprint) async throws
        -> DirectoryEntry
    {
        let updated = try await self.fetch(
            "replace an account's keys",
            """
            UPDATE directory_entries
            SET signing_key = \(Data(publicKeys.signing)), encryption_key = \(Data(publicKeys.encryption)),
                fingerprint = \(Data(fingerprint.bytes))
            WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL
            RETURNING \(unescaped: Self.columns)
            """
        )
        guard let entry = updated.first else {
            throw WotsError(.notFound, "token \(token) has no directory entry")
        }
        return entry
    }

    public func delete(token: Token) async throws {
        let deleted = try await self.database.withErrorMapping("delete a directory entry") {
            try await self.database.client.query(
                """
                UPDATE directory_entries SET deleted_at = now()
                WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL
                RETURNING 1
                """,
                logger: self.database.queryLogger
            ).collect().count
        }
        guard deleted > 0 else {
            throw WotsError(.notFound, "token \(token) has no directory entry")
        }
    }

    public func count() async throws -> Int {
        try await self.database.withErrorMapping("count directory entries") {
            let rows = try await self.database.client.query(
                "SELECT count(*) FROM directory_entries WHERE deleted_at IS NULL",
                logger: self.database.queryLogger
            ).collect()
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    static let columns = "token, nickname, signing_key, encryption_key, fingerprint, registered_at"

    private func fetch(_ operation: String, _ query: PostgresQuery) async throws -> [DirectoryEntry] {
        let rows = try await self.database.withErrorMapping(operation) {
            try await self.database.client.query(query, logger: self.database.queryLogger).collect()
        }
        return try rows.map(Self.entry(from:))
    }

    /// Decodes a row of `columns`.
    static func entry(from row: PostgresRow) throws -> DirectoryEntry {
        do {
            let (token, nickname, signing, encryption, fingerprint, registeredAt) = try row.decode(
                (Data, String, Data, Data, Data, Date).self
            )
            return DirectoryEntry(
                token: try Token(bytes: Array(token)),
                nickname: try Nickname(naming: nickname),
                publicKeys: PublicKeys(signing: Array(signing), encryption: Array(encryption)),
                fingerprint: try Fingerprint(bytes: Array(fingerprint)),
                registeredAt: PostgresTime.loaded(registeredAt)
            )
        } catch {
            throw WotsError(.storageCorrupted, "a stored directory entry could not be decoded")
        }
    }
}
