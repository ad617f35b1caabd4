public import Foundation
import GRDB
public import WotsCore
public import WotsStorage
import WotsTransparency

/// Suspensions, invites and statistics in SQLite. Suspending and unsuspending add a row to `account_changes` in the
/// same transaction, which relays on the same file poll (`SQLiteAccountChangeFeed`).
public struct SQLiteAdministrationRepository: AdministrationRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    @discardableResult
    public func suspend(token: Token, at now: Date) async throws -> DirectoryEntry {
        try await self.database.write("suspend an account") { db in
            guard let entry = try SQLiteDirectoryRepository.liveEntry(token: token, in: db) else {
                throw unknownAccount(token)
            }
            try db.execute(
                sql: "INSERT INTO account_suspensions (token, suspended_at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING",
                arguments: [token.databaseBytes, now.millisecondsSince1970]
            )
            try SQLiteAuthenticationRepository.deleteSessions(of: token, in: db)
            try SQLiteAccountChangeFeed.record(token, in: db)
            return entry
        }
    }

    @discardableResult
    public func unsuspend(token: Token) async throws -> DirectoryEntry {
        try await self.database.write("unsuspend an account") { db in
            guard let entry = try SQLiteDirectoryRepository.liveEntry(token: token, in: db) else {
                throw unknownAccount(token)
            }
            try db.execute(sql: "DELETE FROM account_suspensions WHERE token = ?", arguments: [token.databaseBytes])
            try SQLiteAccountChangeFeed.record(token, in: db)
            return entry
        }
    }

    public func suspension(of token: Token) async throws -> Date? {
        try await self.database.read("read a suspension") { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT s.suspended_at_ms FROM account_suspensions s
                    JOIN directory_entries d ON d.token = s.token AND d.deleted_at_ms IS NULL
                    WHERE s.token = ?
                    """,
                arguments: [token.databaseBytes]
            ).map(Date.init(millisecondsSince1970:))
        }
    }

    public func suspensions() async throws -> [Token: Date] {
        try await self.database.read("list suspensions") { db in
            var suspensions: [Token: Date] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.token, s.suspended_at_ms FROM account_suspensions s
                    JOIN directory_entries d ON d.token = s.token AND d.deleted_at_ms IS NULL
                    """
            )
            for row in rows {
                suspensions[try Token(databaseBytes: row["token"])] = Date(
                    millisecondsSince1970: row["suspended_at_ms"]
                )
            }
            return suspensions
        }
    }

    public func createInvite(_ invite: Invite) async throws {
        try await self.database.write("create an invite") { db in
            try db.execute(
                sql: """
                    INSERT INTO invites (id, code_hash, maximum_uses, uses, created_at_ms, expires_at_ms, revoked_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    invite.id, Data(invite.codeHash), invite.maximumUses, invite.uses,
                    invite.createdAt.millisecondsSince1970, invite.expiresAt?.millisecondsSince1970,
                    invite.revokedAt?.millisecondsSince1970,
                ]
            )
        }
    }

    public func invites() async throws -> [Invite] {
        try await self.database.read("list invites") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM invites ORDER BY created_at_ms DESC, id DESC").map(Self.invite)
        }
    }

    @discardableResult
    public func revokeInvite(id: String, at now: Date) async throws -> Invite {
        try await self.database.write("revoke an invite") { db in
            try db.execute(
                sql: "UPDATE invites SET revoked_at_ms = COALESCE(revoked_at_ms, ?) WHERE id = ?",
                arguments: [now.millisecondsSince1970, id]
            )
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM invites WHERE id = ?", arguments: [id]) else {
                throw WotsError(.notFound, "no invite has id \(id)")
            }
            return Self.invite(row)
        }
    }

    public func create(
        _ entry: DirectoryEntry,
        redeemingInviteHash codeHash: [UInt8],
        now: Date,
        attestation: [UInt8]
    ) async throws {
        try await self.database.requireFreeSpace()
        try await self.database.write("register with an invite") { db in
            try db.execute(
                sql: """
                    UPDATE invites SET uses = uses + 1
                    WHERE code_hash = ? AND revoked_at_ms IS NULL AND uses < maximum_uses
                        AND (expires_at_ms IS NULL OR expires_at_ms > ?)
                    """,
                arguments: [Data(codeHash), now.millisecondsSince1970]
            )
            guard db.changesCount == 1 else { throw unusableInvite() }
            try SQLiteDirectoryRepository.insert(entry, attestation: attestation, in: db)
        }
    }

    public func undoCreate(token: Token, restoringInviteHash codeHash: [UInt8]) async throws {
        try await self.database.write("undo a registration with an invite") { db in
            guard try SQLiteDirectoryRepository.withdraw(token: token, at: Date(), in: db) else { return }
            try db.execute(
                sql: "UPDATE invites SET uses = uses - 1 WHERE code_hash = ? AND uses > 0",
                arguments: [Data(codeHash)]
            )
        }
    }

    public func statistics(now: Date, days: Int) async throws -> RelayStatistics {
        let start = RelayStatistics.windowStart(days: days, endingAt: now)
        return try await self.database.read("read the relay's statistics") { db in
            let accounts =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM directory_entries WHERE deleted_at_ms IS NULL") ?? 0
            let suspended =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM account_suspensions s
                        JOIN directory_entries d ON d.token = s.token AND d.deleted_at_ms IS NULL
                        """
                ) ?? 0
            let queued = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS messages, COALESCE(SUM(length(envelope)), 0) AS bytes,
                        MIN(received_at_ms) AS oldest
                    FROM mailbox_messages
                    """
            )
            let registrations = try Int64.fetchAll(
                db,
                sql: "SELECT registered_at_ms FROM directory_entries WHERE registered_at_ms >= ?",
                arguments: [start.millisecondsSince1970]
            )
            let oldest: Int64? = queued?["oldest"]
            return RelayStatistics(
                accounts: accounts,
                suspendedAccounts: suspended,
                queuedMessages: queued?["messages"] ?? 0,
                queuedBytes: queued?["bytes"] ?? 0,
                oldestQueuedAt: oldest.map(Date.init(millisecondsSince1970:)),
                registrationsPerDay: RelayStatistics.perDay(
                    registrations.map(Date.init(millisecondsSince1970:)),
                    days: days,
                    endingAt: now
                )
            )
        }
    }

    private static func invite(_ row: Row) -> Invite {
        let expiresAt: Int64? = row["expires_at_ms"]
        let revokedAt: Int64? = row["revoked_at_ms"]
        return Invite(
            id: row["id"],
            codeHash: Array(row["code_hash"] as Data),
            maximumUses: row["maximum_uses"],
            uses: row["uses"],
            createdAt: Date(millisecondsSince1970: row["created_at_ms"]),
            expiresAt: expiresAt.map(Date.init(millisecondsSince1970:)),
            revokedAt: revokedAt.map(Date.init(millisecondsSince1970:))
        )
    }
}
