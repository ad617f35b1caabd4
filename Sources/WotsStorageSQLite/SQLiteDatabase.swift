import Foundation
import GRDB
public import Logging
import Synchronization
import WotsCore
public import WotsStorage

/// One SQLite database file shared by the SQLite repositories: a WAL-mode connection pool (one writer, concurrent
/// readers) with the `schema/sqlite` migrations applied.
///
/// Writes run with `synchronous = FULL`, so a write that returned survives `kill -9` and power loss.
public final class SQLiteDatabase: Sendable {
    /// How the database is opened.
    public struct Configuration: Sendable {
        /// How long a connection waits for another process's lock before failing. Default 5 seconds.
        public var busyTimeout: Duration = .seconds(5)
        /// How many read-only connections may run at once beside the writer. Default 4.
        public var maximumReaderCount: Int = 4
        /// Longest any read or write may take before it fails with `storage_unavailable`. Default 10 seconds.
        public var operationTimeout: Duration = .seconds(10)
        /// Free space kept in reserve, in bytes: below it new mail and registrations are refused with
        /// `storage_full`, while acknowledgements, logins and deletions, which free space or need little, go on.
        /// Counts free space on the file system plus SQLite's own free pages. Default 64 MiB.
        public var minimumFreeSpace: Int64 = 64 << 20
        /// How long a message handed to its reader stays staged for its acknowledgement before it is written
        /// (`MailboxPipeline`): a message acknowledged meanwhile is never written as waiting. Only the sender's
        /// receipt waits for it (up to about twice this), never delivery. Default 50 ms.
        public var acknowledgementWait: Duration = .milliseconds(50)
        /// Called inside the key scan's read transaction once it has read every key (tests hold the scan there).
        var keyScanHasRead: (@Sendable () -> Void)?

        /// The defaults.
        public init() {}
    }

    /// Largest size the write-ahead log keeps after a checkpoint, in bytes.
    static let walSizeLimit = 4 << 20
    /// Pages the writer connection keeps in memory, in bytes. SQLite's default, 2 MiB, is smaller than the pages one
    /// transaction of acknowledgements dirties (each lands on a random page of `acknowledged_messages`): the writer
    /// spilled them into the write-ahead log before its commit and read them back from the file for the next one.
    static let writerCacheSize = 32 << 20

    /// The database file.
    public let path: String
    /// What recent operations say about the database.
    public let health = StorageHealth()
    let configuration: Configuration
    let pool: DatabasePool
    /// One more connection, for lookups of a few rows made on the calling thread (`readNow`). Apart from the pool
    /// on purpose: a pool reader can stay taken until an async task resumes, so a thread of the task pool waiting
    /// for one could wait for itself.
    let lookups: DatabaseQueue
    let logger: Logger
    let space: FreeSpaceGauge
    private let pipeline = Mutex<MailboxPipeline?>(nil)

    /// The one write path of this database's mailboxes, shared by every repository made on it: it holds numbers
    /// handed out before their commit, which no other writer may hand out again.
    var mailboxPipeline: MailboxPipeline {
        self.pipeline.withLock { pipeline in
            if let pipeline { return pipeline }
            let made = MailboxPipeline(database: self)
            pipeline = made
            return made
        }
    }

    /// Opens (creating if needed) the database file and applies every migration not applied yet.
    /// - Parameters:
    ///   - path: the database file; it and missing parent folders are created readable by the owner only.
    ///   - configuration: timeouts and pool size; see `Configuration` for the defaults.
    ///   - logger: where migrations are reported.
    /// - Throws: `WotsError` `storage_unavailable` when the file cannot be opened or a migration fails.
    public init(
        path: String,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "wots.storage.sqlite")
    ) async throws {
        self.path = path
        self.logger = logger
        self.configuration = configuration
        self.space = FreeSpaceGauge(folder: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw WotsError(
                .storageUnavailable,
                "cannot create the database folder \(folder): \(error.localizedDescription)"
            )
        }
        // SQLite gives the -wal and -shm files the database file's mode, so creating it owner-only covers all three.
        if !FileManager.default.fileExists(atPath: path),
            !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        {
            throw WotsError(.storageUnavailable, "cannot create the database file \(path)")
        }
        var grdb = GRDB.Configuration()
        grdb.foreignKeysEnabled = true
        grdb.busyMode = .timeout(configuration.busyTimeout.seconds)
        grdb.maximumReaderCount = max(1, configuration.maximumReaderCount)
        do {
            self.pool = try DatabasePool(path: path, configuration: grdb)
            var lookup = grdb
            lookup.readonly = true
            self.lookups = try DatabaseQueue(path: path, configuration: lookup)
            // FULL makes each WAL commit fsync before returning, so an acknowledged write survives power loss.
            // Set on the pool's one writer connection after opening: turning WAL on sets it back to NORMAL.
            try await self.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // After a checkpoint the WAL shrinks back to this size, giving the disk back what a burst took.
                try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
                try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheSize / 1024)")
            }
        } catch {
            throw SQLiteDatabase.storageError(error, while: "open \(path)")
        }
        try await self.migrate()
        try await self.keepStatementJournalsInMemory()
    }

    /// A statement in a batch keeps the pages it changes in a statement journal (an `INSERT OR REPLACE` does); SQLite
    /// spills one that outgrows 64 KiB to a temporary file and then writes every later statement's pages there until
    /// the transaction ends: two `pwrite64` a page, 22 a message while the writer deleted a drained mailbox. Set after
    /// the migrations, whose index builds may sort more than fits in memory.
    private func keepStatementJournalsInMemory() async throws {
        do {
            try await self.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        } catch {
            throw SQLiteDatabase.storageError(error, while: "open \(self.path)")
        }
    }

    /// Closes every connection. Later calls on the repositories fail with `WotsError` `storage_unavailable`.
    ///
    /// When no mailbox write is left, the next process numbers mail on from where this one stopped; otherwise it
    /// skips the numbers this one may have handed out (see `MailboxPipeline`).
    public func close() throws {
        do {
            if let pipeline = self.pipeline.withLock({ $0 }) {
                _ = try pipeline.recordCleanStop { sql in try self.pool.write { try $0.execute(sql: sql) } }
            }
            try self.lookups.close()
            try self.pool.close()
        } catch {
            throw SQLiteDatabase.storageError(error, while: "close the database")
        }
    }

    /// Waits up to `timeout` for the mailbox writes under way to be written, then closes the database (`close()`).
    public func finish(within timeout: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while let pipeline = self.pipeline.withLock({ $0 }), !pipeline.isIdle, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try self.close()
    }

    /// Checks that the database answers and has room (for readiness probes), and records the outcome in `health`.
    /// - Throws: `storage_unavailable` when it does not answer, `storage_full` when it is short of space.
    public func ping() async throws {
        let outcome: Result<Void, any Error>
        do {
            _ = try await self.read("answer a ping") { db in try Int.fetchOne(db, sql: "SELECT 1") }
            try await self.requireFreeSpace(fresh: true)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        self.health.recordProbe(outcome)
        try outcome.get()
    }
}
