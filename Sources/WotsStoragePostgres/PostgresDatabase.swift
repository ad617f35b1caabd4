import Foundation
public import Logging
import PostgresNIO
public import ServiceLifecycle
import WotsCore
public import WotsStorage

/// One PostgreSQL database shared by every Wots repository of a relay process.
///
/// Owns a pooled `PostgresClient`. It is a swift-service-lifecycle `Service`: run it in the relay's `ServiceGroup`
/// (queries wait until `run()` is active and fail once it has stopped). Call `migrate()` after starting it.
public final class PostgresDatabase: Service, Sendable {
    /// Where the database is and how to connect.
    public let configuration: Configuration
    /// A random id for this process's connection to the database, carried in `LISTEN/NOTIFY` payloads so a node can
    /// skip its own notifications.
    public let nodeID: String
    /// Longest a readiness probe waits: a heartbeat is one tiny write, and a probe stuck on a dead connection must not
    /// hold back the relay's view of an outage.
    static let probeTimeout: Duration = .seconds(2)

    /// What recent operations say about the database; while the relay's health monitor probes it, operations on an
    /// unavailable database fail at once.
    public let health = StorageHealth()

    let pools: ConnectionPools
    /// Notifications to other relay processes, sent in order off the answer path.
    let outgoingNotifications = OutgoingNotifications()
    /// The pool in use now.
    var client: PostgresClient { self.pools.current.client }
    let logger: Logger
    /// Passed to per-query logging: queries and their bound values stay out of the logs.
    let queryLogger: Logger

    /// Creates the database handle; nothing connects until `run()`.
    /// - Parameters:
    ///   - configuration: host, credentials, database, TLS and pool size.
    ///   - logger: receives connection-pool events (never queries or their values).
    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.nodeID = UUID().uuidString.lowercased()
        self.logger = logger
        self.queryLogger = Logger(label: "wots.postgres.query", factory: { _ in SwiftLogNoOpLogHandler() })
        // The pool reports every failed connection attempt at info; during an outage that is a line per retry, and
        // the relay's health monitor already says when the database goes and comes back.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .notice)
        self.pools = ConnectionPools { [poolLogger] in
            PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: poolLogger)
        }
    }

    /// Creates the database handle from a `postgres://user[:password]@host[:port]/database[?sslmode=require]` URL.
    /// - Throws: `WotsError.invalidArgument` when the URL is not of that form.
    public convenience init(url: String, logger: Logger) throws {
        self.init(configuration: try Configuration(url: url), logger: logger)
    }

    /// Runs the connection pool until the task is cancelled or a graceful shutdown is triggered.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.outgoingNotifications.run(on: self) }
            await self.pools.run()
            self.outgoingNotifications.finish()
        }
    }

    /// Checks that the database answers and accepts writes (it records this node's heartbeat), for readiness
    /// probes, and records the outcome in `health`. Never fails fast: this is how an outage is seen to end. While the
    /// database is known to be unavailable, a direct connection is tried first; when it succeeds, the connection
    /// pool is replaced by a fresh one (see `ConnectionPools`) before the heartbeat goes through it.
    /// - Throws: `storage_unavailable` when it does not answer within the operation deadline, `storage_full` when
    ///   the server is out of disk space.
    public func ping() async throws {
        let outcome: Result<Void, any Error>
        do {
            if case .unavailable = self.health.condition {
                if let cause = await self.connectOnce() {
                    throw WotsError(.storageUnavailable, "the database does not answer: \(cause)")
                }
                if self.pools.replace() {
                    self.logger.notice("the database answers again: opened a fresh connection pool")
                }
            }
            let timeout = min(self.configuration.operationTimeout, Self.probeTimeout)
            try await self.run("record a heartbeat", failingFast: false, timeout: timeout) {
                try await self.client.query(
                    """
                    INSERT INTO relay_heartbeats (node, at) VALUES (\(self.nodeID), now())
                    ON CONFLICT (node) DO UPDATE SET at = EXCLUDED.at
                    """,
                    logger: self.queryLogger
                )
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        self.health.recordProbe(outcome)
        try outcome.get()
    }

    /// The public directory stored in this database.
    public var directory: PostgresDirectoryRepository { PostgresDirectoryRepository(database: self) }
    /// The sealed private records stored in this database.
    public var privateRecords: PostgresPrivateRecordRepository { PostgresPrivateRecordRepository(database: self) }
    /// The mailboxes stored in this database. Each access makes a new repository: keep one, since appends are
    /// group-committed only with others made through the same repository.
    public var mailboxes: PostgresMailboxRepository { PostgresMailboxRepository(database: self) }
    /// Account deletion and key rotation, each one transaction.
    public var accounts: PostgresAccountRepository { PostgresAccountRepository(database: self) }
    /// Suspensions, invites and statistics: what the operator changes.
    public var administration: PostgresAdministrationRepository { PostgresAdministrationRepository(database: self) }
    /// Encrypted attachment blobs stored in this database.
    public var blobs: PostgresBlobRepository { PostgresBlobRepository(database: self) }
    /// Relay id, login challenges and sessions stored in this database.
    public var authentication: PostgresAuthenticationRepository { PostgresAuthenticationRepository(database: self) }
}

extension PostgresDatabase {
    /// Runs `body` within the operation deadline, turning PostgreSQL errors into `WotsError`s and recording the
    /// outcome in `health`.
    @discardableResult
    func withErrorMapping<Result: Sendable>(
        _ operation: String,
        uniqueViolations: [String: WotsError] = [:],
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await self.run(operation, uniqueViolations: uniqueViolations, body)
    }

    /// Runs `body` in a transaction on one pooled connection, as `withErrorMapping` does.
    ///
    /// Deadlocks and serialization failures are retried, and so are unique violations whose constraint is in
    /// `retryingOn` (a race another transaction won: running again sees its row). The deadline covers every attempt.
    @discardableResult
    func transaction<Result: Sendable>(
        _ operation: String,
        uniqueViolations: [String: WotsError] = [:],
        retryingOn retryConstraints: Set<String> = [],
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await self.run(operation, uniqueViolations: uniqueViolations, timeout: timeout) {
            try await Self.retrying(constraints: retryConstraints) {
                try await self.client.withTransaction(logger: self.queryLogger) { connection in
                    try await body(connection)
                }
            }
        }
    }

    /// Runs a transaction up to four times: again after a deadlock, a serialization failure or a unique violation of
    /// one of `constraints`; any other error, or the fourth, is thrown (the transaction's own cause, not its wrapper).
    static func retrying<Result: Sendable>(
        constraints: Set<String>,
        _ attempt: () async throws -> Result
    ) async throws -> Result {
        let attempts = 4
        for number in 1...attempts {
            do {
                return try await attempt()
            } catch {
                let underlying = WotsError.transactionCause(of: error)
                if number < attempts, WotsError.isRetryable(underlying, constraints: constraints) {
                    continue
                }
                throw underlying
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// The one way every operation reaches the database: fail fast during a known outage, bound the wait, map the
    /// error, record the outcome.
    @discardableResult
    private func run<Result: Sendable>(
        _ operation: String,
        uniqueViolations: [String: WotsError] = [:],
        failingFast: Bool = true,
        timeout: Duration? = nil,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        if failingFast, let failure = self.health.fastFailure { throw failure }
        let pool = self.pools.current
        do {
            let value = try await Deadline.run(
                timeout ?? self.configuration.operationTimeout,
                operation,
                abandonedBy: pool.retired,
                body
            )
            self.health.record(.success(()))
            return value
        } catch {
            let mapped = WotsError.mapping(error, operation: operation, uniqueViolations: uniqueViolations)
            self.health.record(.failure(mapped))
            throw mapped
        }
    }
}
