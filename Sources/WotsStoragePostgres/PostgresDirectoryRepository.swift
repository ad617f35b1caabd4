import Foundation
import Logging
import PostgresNIO
public import WotsCore
public import WotsStorage
import WotsTransparency

/// The public directory in PostgreSQL. Deleted accounts stay as tombstones; pages use the nickname index.
public struct PostgresDirectoryRepository: DirectoryRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func create(_ entry: DirectoryEntry, attestation: [UInt8]) async throws {
        let taken = [
            "directory_entries_nickname_key": WotsError(
                .nicknameTaken,
                "nickname \"\(entry.nickname)\" is taken"
            ),
            "directory_entries_pkey": WotsError(.tokenTaken, "token \(entry.token) is already registered"),
        ]
        let logger = self.database.queryLogger
        let event = DirectoryLogEvent(.registered, entry, at: entry.registeredAt, attestation: attestation)
        try await self.database.transaction("register \"\(entry.nickname)\"", uniqueViolations: taken) { connection in
            try await connection.query(
                """
                INSERT INTO directory_entries (token, nickname, signing_key, encryption_key, fingerprint, registered_at)
                VALUES (\(Data(entry.token.bytes)), \(entry.nickname.value), \(Data(entry.publicKeys.signing)),
                    \(Data(entry.publicKeys.encryption)), \(Data(entry.fingerprint.bytes)),
                    \(PostgresTime.stored(entry.registeredAt)))
                """,
                logger: logger
            )
            try await PostgresTransparencyLog.append(event, on: connection, logger: logger)
        }
    }

    public func undoCreate(token: Token) async throws {
        let logger = self.database.queryLogger
        try await self.database.transaction("undo a registration") { connection in
            let rows = try await connection.query(
                """
                DELETE FROM directory_entries WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL
                RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            ).collect()
            guard let row = rows.first else { return }
            let event = DirectoryLogEvent(.withdrawn, try Self.entry(from: row), at: Date())
            try await PostgresTransparencyLog.append(event, on: connection, logger: logger)
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

    public func rotateKeys(token: Token, publicKeys: PublicKeys, fingerprint: Fingerprint, attestation: [UInt8])
        async throws -> DirectoryEntry
    {
        let logger = self.database.queryLogger
        return try await self.database.transaction("replace an account's keys") { connection in
            guard
                let entry = try await Self.rotateKeys(
                    token: token,
                    publicKeys: publicKeys,
                    fingerprint: fingerprint,
                    attestation: attestation,
                    on: connection,
                    logger: logger
                )
            else { throw WotsError(.notFound, "token \(token) has no directory entry") }
            return entry
        }
    }

    public func delete(token: Token) async throws {
        let logger = self.database.queryLogger
        try await self.database.transaction("delete a directory entry") { connection in
            guard try await Self.tombstone(token: token, on: connection, logger: logger) != nil else {
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
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> DirectoryEntry? {
        let rows = try await connection.query(
            """
            UPDATE directory_entries
            SET signing_key = \(Data(publicKeys.signing)), encryption_key = \(Data(publicKeys.encryption)),
                fingerprint = \(Data(fingerprint.bytes))
            WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL
            RETURNING \(unescaped: Self.columns)
            """,
            logger: logger
        ).collect()
        guard let row = rows.first else { return nil }
        let entry = try Self.entry(from: row)
        let event = DirectoryLogEvent(.keysRotated, entry, at: Date(), attestation: attestation)
        try await PostgresTransparencyLog.append(event, on: connection, logger: logger)
        return entry
    }

    /// Turns a live entry into a tombstone and logs it inside the caller's transaction; returns the entry as it
    /// was, nil when there is no live entry.
    static func tombstone(token: Token, on connection: PostgresConnection, logger: Logger) async throws
        -> DirectoryEntry?
    {
        let rows = try await connection.query(
            """
            UPDATE directory_entries SET deleted_at = now() WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL
            RETURNING \(unescaped: Self.columns), deleted_at
            """,
            logger: logger
        ).collect()
        guard let row = rows.first else { return nil }
        let (entry, deletedAt) = try Self.entryWithDeletion(from: row)
        try await PostgresTransparencyLog.append(
            DirectoryLogEvent(.deleted, entry, at: deletedAt ?? Date()),
            on: connection,
            logger: logger
        )
        return entry
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

    /// Decodes a row of `columns` followed by `deleted_at`.
    static func entryWithDeletion(from row: PostgresRow) throws -> (DirectoryEntry, Date?) {
        do {
            let (token, nickname, signing, encryption, fingerprint, registeredAt, deletedAt) = try row.decode(
                (Data, String, Data, Data, Data, Date, Date?).self
            )
            let entry = DirectoryEntry(
                token: try Token(bytes: Array(token)),
                nickname: try Nickname(naming: nickname),
                publicKeys: PublicKeys(signing: Array(signing), encryption: Array(encryption)),
                fingerprint: try Fingerprint(bytes: Array(fingerprint)),
                registeredAt: PostgresTime.loaded(registeredAt)
            )
            return (entry, deletedAt.map(PostgresTime.loaded))
        } catch {
            throw WotsError(.storageCorrupted, "a stored directory entry could not be decoded")
        }
    }
}
