import Foundation
import Logging
import WotsStorage

@testable import WotsStoragePostgres

/// Fresh PostgreSQL repositories in a new database on the throwaway server `scripts/with-postgres.sh` starts.
///
/// Never skips: without `WOTS_TEST_POSTGRES_URL` every PostgreSQL test fails, saying how to run it.
enum PostgresTestBackend {
    static let environmentVariable = "WOTS_TEST_POSTGRES_URL"

    /// Thrown when the tests run without a PostgreSQL server.
    struct ServerMissing: Error, CustomStringConvertible {
        var description: String {
            "\(PostgresTestBackend.environmentVariable) is not set: run the tests through scripts/with-postgres.sh "
                + "(make test does), e.g. scripts/with-postgres.sh swift test"
        }
    }

    /// A database made for one test, dropped by `drop()`.
    struct TestDatabase: Sendable {
        var name: String
        var configuration: PostgresDatabase.Configuration
        var server: PostgresDatabase.Configuration

        /// Drops the database, disconnecting anyone still on it.
        func drop() async throws {
            try await PostgresTestBackend.withDatabase(self.server) { admin in
                try await admin.dropDatabase(named: self.name)
            }
        }
    }

    static let logger: Logger = {
        var logger = Logger(label: "wots.tests.postgres")
        // .error: a query may ask for a connection a moment before the test task starts run(), which PostgresNIO
        // reports as a warning and then serves.
        logger.logLevel = .error
        return logger
    }()

    static func make() async throws -> StorageBackend {
        let testDatabase = try await self.createDatabase()
        let (database, running) = self.start(testDatabase.configuration)
        do {
            try await database.migrate()
        } catch {
            running.cancel()
            await running.value
            try? await testDatabase.drop()
            throw error
        }
        return StorageBackend(
            directory: database.directory,
            privateRecords: database.privateRecords,
            mailboxes: database.mailboxes,
            authentication: database.authentication,
            accounts: database.accounts,
            administration: database.administration,
            log: PostgresTransparencyLog(database: database),
            blobs: database.blobs,
            insertUnloggedEntry: { entry, deleted in try await database.insertUnloggedEntry(entry, deleted: deleted) },
            failSessionDeletions: { try await database.failSessionDeletions() },
            tearDown: {
                running.cancel()
                await running.value
                try await testDatabase.drop()
            }
        )
    }

    /// The server the test script started.
    static func serverConfiguration() throws -> PostgresDatabase.Configuration {
        guard let url = ProcessInfo.processInfo.environment[self.environmentVariable], !url.isEmpty else {
            throw ServerMissing()
        }
        var configuration = try PostgresDatabase.Configuration(url: url)
        // Many test databases share two loaded cores; the deadline bounds a wedge, not a busy machine. 30 s was once
        // too little in CI for the last of 24 concurrent registrations, which queue for 4 connections and one log lock.
        configuration.operationTimeout = .seconds(60)
        // Dozens of test databases share one server: small pools keep them under its connection limit.
        configuration.maximumConnections = 4
        return configuration
    }

    /// Creates an empty database named `wots_t_<random>` on the test server.
    static func createDatabase() async throws -> TestDatabase {
        let server = try self.serverConfiguration()
        let name = "wots_t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await self.withDatabase(server) { admin in
            try await admin.createDatabase(named: name)
        }
        var configuration = server
        configuration.database = name
        return TestDatabase(name: name, configuration: configuration, server: server)
    }

    /// A database handle whose client runs in a task; cancel the task (and await it) to stop the client.
    static func start(_ configuration: PostgresDatabase.Configuration) -> (PostgresDatabase, Task<Void, Never>) {
        let database = PostgresDatabase(configuration: configuration, logger: self.logger)
        let running = Task<Void, Never> {
            // run() only returns early by failing to start, which the first query then reports.
            _ = try? await database.run()
        }
        return (database, running)
    }

    /// Runs `body` with a running client for `configuration`, stopping the client afterwards.
    static func withDatabase<Result: Sendable>(
        _ configuration: PostgresDatabase.Configuration,
        _ body: (PostgresDatabase) async throws -> Result
    ) async throws -> Result {
        let (database, running) = self.start(configuration)
        defer { running.cancel() }
        let result = try await body(database)
        running.cancel()
        await running.value
        return result
    }
}
