public import Foundation
import GRDB
public import WotsCore
public import WotsStorage

/// Relay authentication state in SQLite: the relay id, single-use challenges and hashed sessions.
public struct SQLiteAuthenticationRepository: AuthenticationRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func relayID(storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        try await self.database.write("store the relay id") { db in
            try db.execute(
                sql:
                    "INSERT INTO relay_identity (singleton, relay_id) VALUES (1, ?) ON CONFLICT (singleton) DO NOTHING",
                arguments: [Data(candidate)]
            )
            guard let stored = try Data.fetchOne(db, sql: "SELECT relay_id FROM relay_identity WHERE singleton = 1")
            else {
                throw WotsError(.storageCorrupted, "the relay id vanished while it was being stored")
            }
            return [UInt8](stored)
        }
    }

    public func relaySecret(named name: String, storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        try await self.database.write("store a relay secret") { db in
            try db.execute(
                sql: "INSERT INTO relay_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, Data(candidate)]
            )
            guard
                let stored = try Data.fetchOne(
                    db,
                    sql: "SELECT value FROM relay_secrets WHERE name = ?",
                    arguments: [name]
                )
            else {
                throw WotsError(.storageCorrupted, "the relay secret \(name) vanished while it was being stored")
            }
            return [UInt8](stored)
        }
    }

    public func useChallenge(_ nonce: [UInt8], expiresAt: Date) async throws -> Bool {
        try await self.database.write("record an answered challenge") { db in
            // The write lock makes the insert atomic: of several racing callers, one inserts the row.
            try db.execute(
                sql: "INSERT INTO auth_challenges (nonce, expires_at_ms) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING",
                arguments: [Data(nonce), expiresAt.millisecondsSince1970]
            )
            return db.changesCount == 1
        }
    }

    public func storeSession(hash: [UInt8], token: Token, expiresAt: Date) async throws {
        try await self.database.write("store a session") { db in
            try db.execute(
                sql: """
                    INSERT INTO auth_sessions (hash, token, expires_at_ms) VALUES (?, ?, ?)
                    ON CONFLICT (hash) DO UPDATE SET token = excluded.token, expires_at_ms = excluded.expires_at_ms
                    """,
                arguments: [Data(hash), token.databaseBytes, expiresAt.millisecondsSince1970]
            )
        }
    }

    public func session(hash: [UInt8], now: Date) async throws -> ActiveSession? {
        try await self.database.read("read a session") { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT token, expires_at_ms FROM auth_sessions WHERE hash = ? AND expires_at_ms > ?"
                    ),
                    arguments: [Data(hash), now.millisecondsSince1970]
                )
            else { return nil }
            return ActiveSession(
                token: try Token(databaseBytes: row["token"]),
                expiresAt: Date(millisecondsSince1970: row["expires_at_ms"])
            )
        }
    }

    public func deleteSessions(of token: Token) async throws {
        try await self.database.write("delete sessions") { db in try Self.deleteSessions(of: token, in: db) }
    }

    static func deleteSessions(of token: Token, in db: Database) throws {
        try db.execute(sql: "DELETE FROM auth_sessions WHERE token = ?", arguments: [token.databaseBytes])
    }

    @discardableResult
    public func sweepExpired(now: Date) async throws -> Int {
        let now = now.millisecondsSince1970
        return try await self.database.write("sweep expired challenges and sessions") { db in
            try db.execute(sql: "DELETE FROM auth_challenges WHERE expires_at_ms <= ?", arguments: [now])
            let challenges = db.changesCount
            try db.execute(sql: "DELETE FROM auth_sessions WHERE expires_at_ms <= ?", arguments: [now])
            return challenges + db.changesCount
        }
    }
}
