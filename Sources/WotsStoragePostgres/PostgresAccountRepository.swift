import Foundation
import PostgresNIO
public import WotsCore
public import WotsStorage

/// Account deletion and key rotation in PostgreSQL, each one transaction over every table it touches.
public struct PostgresAccountRepository: AccountRepository {
    let database: PostgresDatabase

    /// - Parameter database: the migrated database to use.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    @discardableResult
    public func deleteAccount(token: Token) async throws -> DirectoryEntry {
        let tokenBytes = Data(token.bytes)
        let logger = self.database.queryLogger
        return try await self.database.transaction("delete an account") { connection in
            guard
                let entry = try await PostgresDirectoryRepository.tombstone(
                    token: token,
                    on: connection,
                    logger: logger
                )
            else { throw unknownAccount(token) }
            try await connection.query("DELETE FROM private_records WHERE token = \(tokenBytes)", logger: logger)
            // The counter row stays (depth 0) so the recipient's sequence numbers are never handed out again.
            try await connection.query(
                "UPDATE mailbox_counters SET depth = 0 WHERE recipient = \(tokenBytes)",
                logger: logger
            )
            try await connection.query("DELETE FROM mailbox_messages WHERE recipient = \(tokenBytes)", logger: logger)
            try await connection.query(
                "DELETE FROM acknowledged_messages WHERE recipient = \(tokenBytes)",
                logger: logger
            )
            try await connection.query("DELETE FROM auth_sessions WHERE token = \(tokenBytes)", logger: logger)
            try await connection.query("DELETE FROM account_suspensions WHERE token = \(tokenBytes)", logger: logger)
            try await self.database.announceChange(of: token, on: connection)
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
        let columns = try PostgresPrivateRecordRepository.Columns(record)
        let tokenBytes = Data(token.bytes)
        let logger = self.database.queryLogger
        return try await self.database.transaction("rotate an account's keys") { connection in
            guard
                let entry = try await PostgresDirectoryRepository.rotateKeys(
                    token: token,
                    publicKeys: publicKeys,
                    fingerprint: fingerprint,
                    attestation: attestation,
                    on: connection,
                    logger: logger
                )
            else { throw unknownAccount(token) }
            try await connection.query(try PostgresPrivateRecordRepository.upsert(columns), logger: logger)
            try await connection.query("DELETE FROM auth_sessions WHERE token = \(tokenBytes)", logger: logger)
            return entry
        }
    }
}
