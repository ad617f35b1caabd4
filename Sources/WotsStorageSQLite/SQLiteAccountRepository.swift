import Foundation
import GRDB
public import WotsCore
public import WotsStorage

/// Account deletion and key rotation in SQLite, each one write transaction over every table it touches.
public struct SQLiteAccountRepository: AccountRepository {
    private let database: SQLiteDatabase

    /// Uses the tables of an opened, migrated database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    @discardableResult
    public func deleteAccount(token: Token) async throws -> DirectoryEntry {
        let now = Date()
        defer { self.database.mailboxPipeline.invalidate([token]) }
        return try await self.database.write("delete an account") { db in
            guard let entry = try SQLiteDirectoryRepository.tombstone(token: token, at: now, in: db) else {
                throw unknownAccount(token)
            }
            try SQLitePrivateRecordRepository.delete(token: token, in: db)
            try MailboxWrite.deleteMailbox(of: token, in: db)
            try SQLiteAuthenticationRepository.deleteSessions(of: token, in: db)
            try db.execute(sql: "DELETE FROM account_suspensions WHERE token = ?", arguments: [token.databaseBytes])
            try SQLiteAccountChangeFeed.record(token, in: db)
            return entry
        }
    }

    public func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        record: PrivateRecord,
        attestation: [UInt8]
    ) async throws -> DirectoryEntry {
        try self.validateRotation(token: token, record: record)
        let now = Date()
        return try await self.database.write("rotate an account's keys") { db in
            guard
                let entry = try SQLiteDirectoryRepository.rotateKeys(
                    token: token,
                    publicKeys: publicKeys,
                    fingerprint: fingerprint,
                    attestation: attestation,
                    at: now,
                    in: db
                )
            else { throw unknownAccount(token) }
            try SQLitePrivateRecordRepository.insert(record, replacing: true, in: db)
            try SQLiteAuthenticationRepository.deleteSessions(of: token, in: db)
            return entry
        }
    }
}
