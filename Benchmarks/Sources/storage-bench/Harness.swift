import Foundation
import WotsCore
import WotsStorage

/// One backend under test: its repositories, a fast bulk fill, and the raw driver's reference inserts.
protocol Harness: Sendable {
    /// One line saying what was measured (backend, durability settings).
    var title: String { get }
    var directory: any DirectoryRepository { get }
    var mailboxes: any MailboxRepository { get }

    /// Adds directory entries `range` (numbered; see `Fixture.nickname(_:)`) with the raw driver in big transactions.
    func fillDirectory(_ range: Range<Int>) async throws

    /// The live nickname at this 0-based position in nickname order, read with the raw driver.
    func nickname(atOffset offset: Int) async throws -> String

    /// Inserts one mailbox row (autocommit) with the raw driver, into a table like `mailbox_messages`.
    func rawInsert(_ row: RawRow) async throws

    /// Inserts rows in one transaction with the raw driver, one INSERT statement per row.
    func rawInsert(batch rows: [RawRow]) async throws
}

/// A mailbox row as the raw reference writes it: the same columns and blob size Wots stores.
struct RawRow: Sendable {
    var recipient: Data
    var sequence: Int64
    var sender: Data
    var messageID: UUID
    var receivedAt: Date
    var envelope: Data
}
