import Foundation
public import Logging
import PostgresNIO
public import ServiceLifecycle
import WotsCore
import WotsStorage

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

    let client: PostgresClient
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
        self.client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
    }

    /// Creates the database handle from a `postgres://user[:password]@host[:port]/database[?sslmode=require]` URL.
    /// - Throws: `WotsError.invalidArgument` when the URL is not of that form.
    public convenience init(url: String, logger: Logger) throws {
        self.init(configuration: try Configuration(url: url), logger: logger)
    }

    /// Runs the connection pool until the task is cancelled or a graceful shutdown is triggered.
    public func run() async throws {
        await self.client.run()
    }

    /// Checks that the database answers (`SELECT 1`), for readiness probes.
    /// - Parameter timeout: how long to wait for the answer. Default 5 seconds.
    /// - Throws: `WotsError` `storage_unavailable` when it does not answer in time.
    public func ping(timeout: Duration = .seconds(5)) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await self.withErrorMapping("check the database") {
                    let rows = try await self.client.query("SELECT 1", logger: self.queryLogger)
                    for try await _ in rows {}
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw WotsError(.storageUnavailable, "the database did not answer within \(timeout)")
            }
            defer { group.cancelAll() }
            _ = try await group.next()
        }
    }

    /// The public directory stored in this database.
    public var directory: PostgresDirectoryRepository { PostgresDirectoryRepository(database: self) }
    /// The sealed private records stored in this database.
    public var privateRecords: PostgresPrivateRecordRepository { PostgresPrivateRecordRepository(database: self) }
    /// The mailboxes stored in this database. Each access makes a new repository: keep one, since appends are
    /// group-committed only with others made through the same repository.
    public var mailboxes: PostgresMailboxRepository { PostgresMailboxRepository(database: self) }
    /// Relay id, login challenges and sessions stored in this database.
    public var authentication: PostgresAuthenticationRepository { PostgresAuthenticationRepository(database: self) }
}

extension PostgresDatabase {
    /// Runs `body`, turning PostgreSQL errors into `WotsError`s.
    @discardableResult
    func withErrorMapping<Result>(
        _ operation: String,
        uniqueViolations: [String: WotsError] = [:],
        _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw WotsError.mapping(error, operation: operation, uniqueViolations: uniqueViolations)
        }
    }

    /// Runs `body` in a transaction on one pooled connection, mapping errors to `WotsError`s.
    ///
    /// Deadlocks and serialization failures are retried, and so are unique violations whose constraint is in
    /// `retryingOn` (a race another transaction won: running again sees its row).
    @discardableResult
    func transaction<Result: Sendable>(
        _ operation: String,
        uniqueViolations: [String: WotsError] = [:],
        retryingOn retryConstraints: Set<String> = [],
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let attempts = 4
        for attempt in 1...attempts {
            do {
                return try await self.client.withTransaction(logger: self.queryLogger) { connection in
                    try await body(connection)
                }
            } catch {
                let underlying = WotsError.transactionCause(of: error)
                if attempt < attempts, WotsError.isRetryable(underlying, constraints: retryConstraints) {
                    continue
                }
                throw WotsError.mapping(underlying, operation: operation, uniqueViolations: uniqueViolations)
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }
}
