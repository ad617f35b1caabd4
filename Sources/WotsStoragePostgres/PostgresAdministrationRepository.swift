public import Foundation
import Logging
import PostgresNIO
public import WotsCore
public import WotsStorage
import WotsTransparency

/// Suspensions, invites and statistics in PostgreSQL. Suspending and unsuspending notify the other relay processes
/// (an account notification on `wots_mail`) in the same transaction, so PostgreSQL sends it exactly when the change
/// commits.
public struct PostgresAdministrationRepository: AdministrationRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    @discardableResult
    public func suspend(token: Token, at now: Date) async throws -> DirectoryEntry {
        let tokenBytes = Data(token.bytes)
        let logger = self.database.queryLogger
        return try await self.database.transaction("suspend an account") { connection in
            let entry = try await Self.liveEntry(token, on: connection, logger: logger)
            try await connection.query(
                """
                INSERT INTO account_suspensions (token, suspended_at) VALUES (\(tokenBytes), \(PostgresTime.stored(now)))
                ON CONFLICT (token) DO NOTHING
                """,
                logger: logger
            )
            try await connection.query("DELETE FROM auth_sessions WHERE token = \(tokenBytes)", logger: logger)
            try await self.database.announceChange(of: token, on: connection)
            return entry
        }
    }

    @discardableResult
    public func unsuspend(token: Token) async throws -> DirectoryEntry {
        let logger = self.database.queryLogger
        return try await self.database.transaction("unsuspend an account") { connection in
            let entry = try await Self.liveEntry(token, on: connection, logger: logger)
            try await connection.query(
                "DELETE FROM account_suspensions WHERE token = \(Data(token.bytes))",
                logger: logger
            )
            try await self.database.announceChange(of: token, on: connection)
            return entry
        }
    }

    public func suspension(of token: Token) async throws -> Date? {
        try await self.database.withErrorMapping("read a suspension") {
            let rows = try await self.database.client.query(
                """
                SELECT s.suspended_at FROM account_suspensions s
                JOIN directory_entries d ON d.token = s.token AND d.deleted_at IS NULL
                WHERE s.token = \(Data(token.bytes))
                """,
                logger: self.database.queryLogger
            ).collect()
            return try rows.first.map { PostgresTime.loaded(try $0.decode(Date.self)) }
        }
    }

    public func suspensions() async throws -> [Token: Date] {
        try await self.database.withErrorMapping("list suspensions") {
            let rows = try await self.database.client.query(
                """
                SELECT s.token, s.suspended_at FROM account_suspensions s
                JOIN directory_entries d ON d.token = s.token AND d.deleted_at IS NULL
                """,
                logger: self.database.queryLogger
            ).collect()
            var suspensions: [Token: Date] = [:]
            for row in rows {
                let (token, date) = try row.decode((Data, Date).self)
                suspensions[try Token(bytes: Array(token))] = PostgresTime.loaded(date)
            }
            return suspensions
        }
    }

    public func createInvite(_ invite: Invite) async throws {
        try await self.database.withErrorMapping("create an invite") {
            try await self.database.client.query(
                """
                INSERT INTO invites (id, code_hash, maximum_uses, uses, created_at, expires_at, revoked_at)
                VALUES (\(invite.id), \(Data(invite.codeHash)), \(invite.maximumUses), \(invite.uses),
                    \(PostgresTime.stored(invite.createdAt)), \(invite.expiresAt.map(PostgresTime.stored)),
                    \(invite.revokedAt.map(PostgresTime.stored)))
                """,
                logger: self.database.queryLogger
            )
        }
    }

    public func invites() async throws -> [Invite] {
        try await self.database.withErrorMapping("list invites") {
            try await self.database.client.query(
                "SELECT \(unescaped: Self.inviteColumns) FROM invites ORDER BY created_at DESC, id DESC",
                logger: self.database.queryLogger
            ).collect().map(Self.invite(from:))
        }
    }

    @discardableResult
    public func revokeInvite(id: String, at now: Date) async throws -> Invite {
        let rows = try await self.database.withErrorMapping("revoke an invite") {
            try await self.database.client.query(
                """
                UPDATE invites SET revoked_at = COALESCE(revoked_at, \(PostgresTime.stored(now))) WHERE id = \(id)
                RETURNING \(unescaped: Self.inviteColumns)
                """,
                logger: self.database.queryLogger
            ).collect()
        }
        guard let row = rows.first else { throw WotsError(.notFound, "no invite has id \(id)") }
        return try Self.invite(from: row)
    }

    public func create(
        _ entry: DirectoryEntry,
        redeemingInviteHash codeHash: [UInt8],
        now: Date,
        attestation: [UInt8]
    ) async throws {
        let taken = [
            "directory_entries_nickname_key": WotsError(.nicknameTaken, "nickname \"\(entry.nickname)\" is taken"),
            "directory_entries_pkey": WotsError(.tokenTaken, "token \(entry.token) is already registered"),
        ]
        let logger = self.database.queryLogger
        try await self.database.transaction("register \"\(entry.nickname)\" with an invite", uniqueViolations: taken) {
            connection in
            // The row lock serialises redemptions of one invite; a waiting one re-checks `uses` once it gets it.
            let redeemed = try await connection.query(
                """
                UPDATE invites SET uses = uses + 1
                WHERE code_hash = \(Data(codeHash)) AND revoked_at IS NULL AND uses < maximum_uses
                    AND (expires_at IS NULL OR expires_at > \(PostgresTime.stored(now)))
                RETURNING id
                """,
                logger: logger
            ).collect()
            guard redeemed.count == 1 else { throw unusableInvite() }
            try await connection.query(
                """
                INSERT INTO directory_entries (token, nickname, signing_key, encryption_key, fingerprint, registered_at)
                VALUES (\(Data(entry.token.bytes)), \(entry.nickname.value), \(Data(entry.publicKeys.signing)),
                    \(Data(entry.publicKeys.encryption)), \(Data(entry.fingerprint.bytes)),
                    \(PostgresTime.stored(entry.registeredAt)))
                """,
                logger: logger
            )
            let event = DirectoryLogEvent(.registered, entry, at: entry.registeredAt, attestation: attestation)
            try await PostgresTransparencyLog.append(event, on: connection, logger: logger)
        }
    }

    public func undoCreate(token: Token, restoringInviteHash codeHash: [UInt8]) async throws {
        let logger = self.database.queryLogger
        try await self.database.transaction("undo a registration with an invite") { connection in
            let removed = try await connection.query(
                """
                DELETE FROM directory_entries WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL
                RETURNING \(unescaped: PostgresDirectoryRepository.columns)
                """,
                logger: logger
            ).collect()
            guard let row = removed.first else { return }
            let event = DirectoryLogEvent(.withdrawn, try PostgresDirectoryRepository.entry(from: row), at: Date())
            try await PostgresTransparencyLog.append(event, on: connection, logger: logger)
            try await connection.query(
                "UPDATE invites SET uses = uses - 1 WHERE code_hash = \(Data(codeHash)) AND uses > 0",
                logger: logger
            )
        }
    }

    public func statistics(now: Date, days: Int) async throws -> RelayStatistics {
        let start = RelayStatistics.windowStart(days: days, endingAt: now)
        return try await self.database.withErrorMapping("read the relay's statistics") {
            let client = self.database.client
            let logger = self.database.queryLogger
            let counts = try await client.query(
                """
                SELECT (SELECT count(*) FROM directory_entries WHERE deleted_at IS NULL),
                    (SELECT count(*) FROM account_suspensions s
                        JOIN directory_entries d ON d.token = s.token AND d.deleted_at IS NULL),
                    count(*), COALESCE(sum(length(envelope)), 0)::bigint, min(received_at)
                FROM mailbox_messages
                """,
                logger: logger
            ).collect()
            guard let row = counts.first else { throw WotsError(.storageCorrupted, "the statistics query had no row") }
            let (accounts, suspended, messages, bytes, oldest) = try row.decode(
                (Int64, Int64, Int64, Int64, Date?).self
            )
            let registrations = try await client.query(
                "SELECT registered_at FROM directory_entries WHERE registered_at >= \(PostgresTime.stored(start))",
                logger: logger
            ).collect().map { PostgresTime.loaded(try $0.decode(Date.self)) }
            return RelayStatistics(
                accounts: Int(accounts),
                suspendedAccounts: Int(suspended),
                queuedMessages: Int(messages),
                queuedBytes: Int(bytes),
                oldestQueuedAt: oldest.map(PostgresTime.loaded),
                registrationsPerDay: RelayStatistics.perDay(registrations, days: days, endingAt: now)
            )
        }
    }

    private static let inviteColumns = "id, code_hash, maximum_uses, uses, created_at, expires_at, revoked_at"

    private static func invite(from row: PostgresRow) throws -> Invite {
        let (id, hash, maximumUses, uses, createdAt, expiresAt, revokedAt) = try row.decode(
            (String, Data, Int, Int, Date, Date?, Date?).self
        )
        return Invite(
            id: id,
            codeHash: Array(hash),
            maximumUses: maximumUses,
            uses: uses,
            createdAt: PostgresTime.loaded(createdAt),
            expiresAt: expiresAt.map(PostgresTime.loaded),
            revokedAt: revokedAt.map(PostgresTime.loaded)
        )
    }

    private static func liveEntry(_ token: Token, on connection: PostgresConnection, logger: Logger) async throws
        -> DirectoryEntry
    {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: PostgresDirectoryRepository.columns) FROM directory_entries
            WHERE token = \(Data(token.bytes)) AND deleted_at IS NULL FOR UPDATE
            """,
            logger: logger
        ).collect()
        guard let row = rows.first else { throw unknownAccount(token) }
        return try PostgresDirectoryRepository.entry(from: row)
    }
}

extension PostgresDatabase {
    /// Tells the other relay processes that an account changed, from inside the transaction that changed it:
    /// PostgreSQL delivers the notification when (and only if) the transaction commits.
    func announceChange(of token: Token, on connection: PostgresConnection) async throws {
        let payload = AccountNotification(nodeID: self.nodeID, token: token).payload
        try await connection.query(
            "SELECT pg_notify(\(PostgresMailboxRepository.notificationChannel), \(payload))",
            logger: self.queryLogger
        )
    }
}
