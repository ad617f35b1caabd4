import Foundation
import Logging
import PostgresNIO
import WotsCore
import WotsStorage
import WotsStoragePostgres

/// PostgreSQL: a fresh database for the Wots repositories and another for the raw reference, both migrated by
/// `PostgresDatabase`, on the server the URL names (default `fsync = on`, `synchronous_commit = on`). The raw
/// reference writes through its own `PostgresClient` with the same pool size Wots uses.
final class PostgresHarness: Harness {
    let title: String
    let directory: any DirectoryRepository
    let mailboxes: any MailboxRepository
    /// Raw driver on the Wots database, for the bulk fill and the offset lookup.
    private let wotsClient: PostgresClient
    /// Raw driver on the reference database.
    private let rawClient: PostgresClient
    private let logger: Logger

    private init(
        title: String,
        database: WotsStoragePostgres.PostgresDatabase,
        wotsClient: PostgresClient,
        rawClient: PostgresClient,
        logger: Logger
    ) {
        self.title = title
        self.directory = database.directory
        self.mailboxes = database.mailboxes
        self.wotsClient = wotsClient
        self.rawClient = rawClient
        self.logger = logger
    }

    /// Creates the two databases on the server, runs `body` with the harness, then drops them.
    static func with(
        serverURL: String,
        logger: Logger,
        _ body: @Sendable (PostgresHarness) async throws -> Void
    ) async throws {
        let server = try WotsStoragePostgres.PostgresDatabase.Configuration(url: serverURL)
        let suffix = "\(ProcessInfo.processInfo.processIdentifier)_\(Int(Date().timeIntervalSince1970))"
        let wotsName = "wots_bench_\(suffix)"
        let rawName = "wots_bench_raw_\(suffix)"
        let admin = PostgresClient(
            configuration: self.clientConfiguration(server, database: server.database),
            backgroundLogger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            defer { group.cancelAll() }
            for name in [wotsName, rawName] {
                // Identifiers cannot be bound; these names are made above of [a-z0-9_] only.
                try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
            }
            do {
                try await self.run(server: server, wotsName: wotsName, rawName: rawName, logger: logger, body)
            } catch {
                try? await self.drop([wotsName, rawName], admin: admin, logger: logger)
                throw error
            }
            try await self.drop([wotsName, rawName], admin: admin, logger: logger)
        }
    }

    private static func drop(_ names: [String], admin: PostgresClient, logger: Logger) async throws {
        for name in names {
            try await admin.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"),
                logger: logger
            )
        }
    }

    private static func run(
        server: WotsStoragePostgres.PostgresDatabase.Configuration,
        wotsName: String,
        rawName: String,
        logger: Logger,
        _ body: @Sendable (PostgresHarness) async throws -> Void
    ) async throws {
        var wotsConfiguration = server
        wotsConfiguration.database = wotsName
        let database = WotsStoragePostgres.PostgresDatabase(configuration: wotsConfiguration, logger: logger)
        let wotsClient = PostgresClient(
            configuration: self.clientConfiguration(server, database: wotsName),
            backgroundLogger: logger
        )
        let rawClient = PostgresClient(
            configuration: self.clientConfiguration(server, database: rawName),
            backgroundLogger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await database.run() }
            group.addTask { await wotsClient.run() }
            group.addTask { await rawClient.run() }
            defer { group.cancelAll() }
            try await database.migrate()
            // The reference database gets the same tables from the same migrations.
            var rawConfiguration = server
            rawConfiguration.database = rawName
            let rawSchema = WotsStoragePostgres.PostgresDatabase(configuration: rawConfiguration, logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { migration in
                migration.addTask { try await rawSchema.run() }
                defer { migration.cancelAll() }
                try await rawSchema.migrate()
            }
            var version = "?"
            var settings: [String] = []
            for try await (text) in try await wotsClient.query(
                "SELECT current_setting('server_version')",
                logger: logger
            )
            .decode(String.self) {
                version = text
            }
            for name in ["fsync", "synchronous_commit", "wal_sync_method"] {
                for try await (value) in try await wotsClient.query("SELECT current_setting(\(name))", logger: logger)
                    .decode(String.self)
                {
                    settings.append("\(name)=\(value)")
                }
            }
            let harness = PostgresHarness(
                title:
                    "PostgreSQL \(version), \(settings.joined(separator: ", ")), pool of \(server.maximumConnections)",
                database: database,
                wotsClient: wotsClient,
                rawClient: rawClient,
                logger: logger
            )
            try await body(harness)
        }
    }

    private static func clientConfiguration(
        _ server: WotsStoragePostgres.PostgresDatabase.Configuration,
        database: String
    ) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: server.host,
            port: server.port,
            username: server.username,
            password: server.password,
            database: database,
            tls: .disable
        )
        configuration.options.maximumConnections = server.maximumConnections
        return configuration
    }

    func fillDirectory(_ range: Range<Int>) async throws {
        // Rows made by the server itself, 100,000 a statement: tokens from md5 (16 bytes), the nickname formula of
        // `Fixture.nickname(_:)`, 294-byte keys, a 32-byte fingerprint.
        let signing = Data(Fixture.randomBytes(Fixture.publicKeySize))
        let encryption = Data(Fixture.randomBytes(Fixture.publicKeySize))
        let fingerprint = Data(Fixture.randomBytes(Fingerprint.byteCount))
        let chunk = 100_000
        for start in stride(from: range.lowerBound, to: range.upperBound, by: chunk) {
            let last = min(start + chunk, range.upperBound) - 1
            try await self.wotsClient.query(
                """
                INSERT INTO directory_entries (token, nickname, signing_key, encryption_key, fingerprint, registered_at)
                SELECT decode(md5('wots-bench-' || i::text), 'hex'),
                    'u' || lpad(to_hex((i * 2654435761) % 4294967296), 8, '0'),
                    \(signing), \(encryption), \(fingerprint), now()
                FROM generate_series(\(Int64(start)), \(Int64(last))) AS i
                """,
                logger: self.logger
            )
        }
        // What autovacuum would have done by the time a directory is this big.
        try await self.wotsClient.query("VACUUM ANALYZE directory_entries", logger: self.logger)
    }

    func nickname(atOffset offset: Int) async throws -> String {
        let rows = try await self.wotsClient.query(
            """
            SELECT nickname FROM directory_entries WHERE deleted_at IS NULL
            ORDER BY nickname LIMIT 1 OFFSET \(offset)
            """,
            logger: self.logger
        )
        for try await nickname in rows.decode(String.self) {
            return nickname
        }
        throw BenchError("the directory has no entry at offset \(offset)")
    }

    func rawInsert(_ row: RawRow) async throws {
        try await self.rawClient.query(try Self.insert(row), logger: self.logger)
    }

    func rawInsert(batch rows: [RawRow]) async throws {
        try await self.rawClient.withTransaction(logger: self.logger) { connection in
            for row in rows {
                try await connection.query(try Self.insert(row), logger: self.logger)
            }
        }
    }

    /// The raw single insert plus the `pg_notify` each Wots append sends, in one transaction: PostgreSQL serialises the
    /// commits of transactions that notified, so this shows what the notification alone costs.
    func rawInsertNotifying(_ row: RawRow) async throws {
        try await self.rawClient.withTransaction(logger: self.logger) { connection in
            try await connection.query(try Self.insert(row), logger: self.logger)
            try await connection.query(
                "SELECT pg_notify('wots_bench', \(row.sequence.description))",
                logger: self.logger
            )
        }
    }

    private static func insert(_ row: RawRow) throws -> PostgresQuery {
        try """
        INSERT INTO mailbox_messages (recipient, sequence, sender, message_id, received_at, envelope)
        VALUES (\(row.recipient), \(row.sequence), \(row.sender), \(row.messageID), \(row.receivedAt), \(row.envelope))
        """
    }
}
