public import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

/// The relay's id, login challenges and sessions in PostgreSQL, shared by every relay process on the database.
public struct PostgresAuthenticationRepository: AuthenticationRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func relayID(storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        try await self.database.withErrorMapping("read the relay id") {
            try await self.database.client.query(
                "INSERT INTO relay_identity (singleton, relay_id) VALUES (true, \(Data(candidate))) ON CONFLICT DO NOTHING",
                logger: self.database.queryLogger
            )
            // A separate statement: under READ COMMITTED it sees the row a racing process just committed.
            let rows = try await self.database.client.query(
                "SELECT relay_id FROM relay_identity WHERE singleton",
                logger: self.database.queryLogger
            ).collect()
            guard let stored = try rows.first?.decode(Data.self) else {
                throw WotsError(.storageCorrupted, "the relay id vanished after it was stored")
            }
            return Array(stored)
        }
    }

    public func relaySecret(named name: String, storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        try await self.database.withErrorMapping("store a relay secret") {
            try await self.database.client.query(
                "INSERT INTO relay_secrets (name, value) VALUES (\(name), \(Data(candidate))) ON CONFLICT DO NOTHING",
                logger: self.database.queryLogger
            )
            let rows = try await self.database.client.query(
                "SELECT value FROM relay_secrets WHERE name = \(name)",
                logger: self.database.queryLogger
            ).collect()
            guard let stored = try rows.first?.decode(Data.self) else {
                throw WotsError(.storageCorrupted, "the relay secret \(name) vanished after it was stored")
            }
            return Array(stored)
        }
    }

    public func useChallenge(_ nonce: [UInt8], expiresAt: Date) async throws -> Bool {
        try await self.database.withErrorMapping("record an answered challenge") {
            let rows = try await self.database.client.query(
                """
                INSERT INTO auth_challenges (nonce, expires_at) VALUES (\(Data(nonce)), \(expiresAt))
                ON CONFLICT (nonce) DO NOTHING RETURNING true
                """,
                logger: self.database.queryLogger
            ).collect()
            return !rows.isEmpty
        }
    }

    public func storeSession(hash: [UInt8], token: Token, expiresAt: Date) async throws {
        try await self.database.withErrorMapping("store a session") {
            try await self.database.client.query(
                """
                INSERT INTO auth_sessions (hash, token, expires_at) VALUES (\(Data(hash)), \(Data(token.bytes)), \(expiresAt))
                ON CONFLICT (hash) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
                """,
                logger: self.database.queryLogger
            )
        }
    }

    public func session(hash: [UInt8], now: Date) async throws -> ActiveSession? {
        let stored = try await self.database.withErrorMapping("look up a session") {
            try await self.database.client.query(
                "SELECT token, expires_at FROM auth_sessions WHERE hash = \(Data(hash)) AND expires_at > \(now)",
                logger: self.database.queryLogger
            ).collect().first?.decode((Data, Date).self)
        }
        guard let (token, expiresAt) = stored else { return nil }
        do {
            return ActiveSession(token: try Token(bytes: Array(token)), expiresAt: PostgresTime.loaded(expiresAt))
        } catch {
            throw WotsError(.storageCorrupted, "a stored session names a malformed token")
        }
    }

    public func deleteSessions(of token: Token) async throws {
        try await self.database.withErrorMapping("end an account's sessions") {
            try await self.database.client.query(
                "DELETE FROM auth_sessions WHERE token = \(Data(token.bytes))",
                logger: self.database.queryLogger
            )
        }
    }

    @discardableResult
    public func sweepExpired(now: Date) async throws -> Int {
        try await self.database.withErrorMapping("remove expired challenges and sessions") {
            let rows = try await self.database.client.query(
                """
                WITH challenges AS (
                    DELETE FROM auth_challenges WHERE expires_at <= \(now) RETURNING 1
                ), sessions AS (
                    DELETE FROM auth_sessions WHERE expires_at <= \(now) RETURNING 1
                )
                SELECT (SELECT count(*) FROM challenges) + (SELECT count(*) FROM sessions)
                """,
                logger: self.database.queryLogger
            ).collect()
            return try rows.first?.decode(Int.self) ?? 0
        }
    }
}
