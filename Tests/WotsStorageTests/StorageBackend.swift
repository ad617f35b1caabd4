import Foundation
import Testing
import WotsCore
import WotsStorage

/// One set of repositories sharing one database, as the contract suite sees it.
struct StorageBackend: Sendable {
    var directory: any DirectoryRepository
    var privateRecords: any PrivateRecordRepository
    var mailboxes: any MailboxRepository
    var authentication: any AuthenticationRepository
    var accounts: any AccountRepository
    var administration: any AdministrationRepository
    var log: any TransparencyLogRepository
    var blobs: any BlobRepository
    /// Writes a directory entry (a tombstone when `deleted`) straight into the table, bypassing the log, as a
    /// database from before the log holds it; nil for the in-memory backend, which has no such past.
    var insertUnloggedEntry: (@Sendable (_ entry: DirectoryEntry, _ deleted: Bool) async throws -> Void)? = nil
    /// Makes every later deletion of a session fail inside the database (a trigger), so a test can see a multi-table
    /// change fail at its last step; nil for the in-memory backend, which cannot fail halfway.
    var failSessionDeletions: (@Sendable () async throws -> Void)? = nil
    /// Stops clients and removes whatever the backend created (temp files, the test database).
    var tearDown: @Sendable () async throws -> Void
}

/// The backends every contract test runs against. Each `make()` returns fresh, empty repositories.
enum StorageBackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite
    case postgres

    var testDescription: String { self.rawValue }
}

extension MailboxStatistics {
    /// The mail counted, which every repository counts alike, without a key filter's figures (SQLite's alone).
    var mailTotals: MailboxStatistics {
        var totals = self
        totals.keyFilter = nil
        return totals
    }
}
