import Foundation
import PostgresNIO
import WotsCore

@testable import WotsStoragePostgres

extension WotsStoragePostgres.PostgresDatabase {
    /// Writes a directory row (a tombstone when `deleted`) with no log leaf, as a database from before the log has it.
    func insertUnloggedEntry(_ entry: DirectoryEntry, deleted: Bool) async throws {
        let deletedAt = deleted ? entry.registeredAt.addingTimeInterval(0.001) : nil
        try await self.client.query(
            """
            INSERT INTO directory_entries
                (token, nickname, signing_key, encryption_key, fingerprint, registered_at, deleted_at)
            VALUES (\(Data(entry.token.bytes)), \(entry.nickname.value), \(Data(entry.publicKeys.signing)),
                \(Data(entry.publicKeys.encryption)), \(Data(entry.fingerprint.bytes)), \(entry.registeredAt),
                \(deletedAt))
            """
        )
    }
}
