import Foundation
import GRDB
public import Logging
public import ServiceLifecycle
public import WotsCore
import WotsStorage

/// Tells a relay about account changes another process made to its SQLite file (`wots-relay admin` suspending or
/// deleting an account): polls `account_changes` every `interval` and publishes an `AccountChanged` for each new row,
/// so the relay drops the account's cached sessions and closes its streams.
///
/// SQLite has no notifications between processes; one indexed read per interval is the price. Changes made before
/// the feed started are not replayed: a relay starting up has nothing cached yet.
public final class SQLiteAccountChangeFeed: Service, Sendable {
    /// How long a change row is kept: far longer than any relay takes to poll it.
    static let retention: TimeInterval = 3_600

    private let database: SQLiteDatabase
    private let bus: EventBus
    private let interval: Duration
    private let logger: Logger

    /// - Parameter interval: the pause between two polls. Default 250 ms.
    public init(database: SQLiteDatabase, bus: EventBus, interval: Duration = .milliseconds(250), logger: Logger) {
        self.database = database
        self.bus = bus
        self.interval = interval
        self.logger = logger
    }

    /// Polls until cancelled or a graceful shutdown.
    public func run() async throws {
        let start = try await self.database.read("read the account change log") { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM account_changes") ?? 0
        }
        await cancelWhenGracefulShutdown {
            var lastID = start
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: self.interval)
                    lastID = try await self.publishChanges(after: lastID)
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.warning("could not read account changes", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Publishes the changes past `lastID` and returns the id of the last one.
    func publishChanges(after lastID: Int64) async throws -> Int64 {
        let rows = try await self.database.read("read the account change log") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT id, token FROM account_changes WHERE id > ? ORDER BY id",
                arguments: [lastID]
            ).map { row in (row["id"] as Int64, try Token(databaseBytes: row["token"])) }
        }
        for (_, token) in rows {
            self.bus.publish(AccountChanged(token: token, isFromAnotherProcess: true))
        }
        return rows.last?.0 ?? lastID
    }

    /// Adds a change row inside the caller's transaction, dropping rows past their retention. Stamped with this
    /// machine's clock, whatever time the change itself records, so the retention is measured in real time.
    static func record(_ token: Token, in db: Database) throws {
        let now = Date()
        try db.execute(
            sql: "INSERT INTO account_changes (token, changed_at_ms) VALUES (?, ?)",
            arguments: [token.databaseBytes, now.millisecondsSince1970]
        )
        try db.execute(
            sql: "DELETE FROM account_changes WHERE changed_at_ms < ?",
            arguments: [now.addingTimeInterval(-Self.retention).millisecondsSince1970]
        )
    }
}
