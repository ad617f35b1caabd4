import Foundation
import PostgresNIO
import WotsCore
import WotsStorage

extension PostgresDatabase {
    /// An arbitrary constant: the advisory-lock key every Wots process takes while migrating.
    static let migrationLockKey: Int64 = 0x776F_7473_6D69_6772

    /// Applies the numbered migrations from `schema/postgres` that this database has not seen yet, in order, in one
    /// transaction, and records each in `schema_migrations`.
    ///
    /// Safe to call again (nothing left to apply) and from several relay processes at once: a transaction-level
    /// advisory lock lets one migrate while the others wait, then find nothing to do.
    /// - Returns: the versions applied by this call.
    /// - Throws: `WotsError` `storage_corrupted` when a bundled migration cannot be read, `storage_unavailable` when the
    ///   database fails.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await self.migrate(through: .max)
    }

    /// Applies the bundled migrations up to `lastVersion` (tests use it to make an older database).
    @discardableResult
    func migrate(through lastVersion: Int) async throws -> [Int] {
        let migrations = try Migration.bundled().filter { $0.version <= lastVersion }
        return try await self.transaction("apply migrations", timeout: self.configuration.migrationTimeout) {
            connection in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(Self.migrationLockKey))",
                logger: self.queryLogger
            )
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                logger: self.queryLogger
            )
            var applied = Set<Int>()
            for try await version in try await connection.query(
                "SELECT version FROM schema_migrations",
                logger: self.queryLogger
            ).decode(Int.self) {
                applied.insert(version)
            }
            var newlyApplied: [Int] = []
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    // The statement is the migration file's own text, shipped with the program; it binds nothing.
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.queryLogger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: self.queryLogger
                )
                newlyApplied.append(migration.version)
            }
            if !newlyApplied.isEmpty {
                self.logger.info(
                    "applied database migrations",
                    metadata: ["versions": "\(newlyApplied.map(String.init).joined(separator: ","))"]
                )
            }
            return newlyApplied
        }
    }
}

/// One numbered plain-SQL file from `schema/postgres`, such as `0001_initial.sql`.
struct Migration: Sendable {
    var version: Int
    var name: String
    var statements: [String]

    /// The migrations bundled with this module, in version order.
    ///
    /// `Migrations` links to `schema/postgres`; with a `.process` resource rule its files sit at the top of the bundle,
    /// with `.copy` in a `Migrations` folder. Both are looked for.
    static func bundled() throws -> [Migration] {
        guard let resources = Bundle.module.resourceURL else {
            throw WotsError(.storageCorrupted, "the WotsStoragePostgres resource bundle is missing")
        }
        let files = [resources.appendingPathComponent("Migrations"), resources].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "sql" }
        }
        guard !files.isEmpty else {
            throw WotsError(.storageCorrupted, "no PostgreSQL migrations (*.sql) were found in \(resources.path)")
        }
        var migrations: [Migration] = []
        for file in files {
            let name = file.deletingPathExtension().lastPathComponent
            guard let version = Int(name.prefix(while: \.isNumber)), version > 0 else {
                throw WotsError(
                    .storageCorrupted,
                    "migration file \(file.lastPathComponent) does not start with a version"
                )
            }
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                throw WotsError(.storageCorrupted, "migration file \(file.lastPathComponent) cannot be read as UTF-8")
            }
            migrations.append(Migration(version: version, name: name, statements: Self.statements(in: text)))
        }
        migrations.sort { $0.version < $1.version }
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.version == later.version {
            throw WotsError(
                .storageCorrupted,
                "migrations \(earlier.name) and \(later.name) share version \(later.version)"
            )
        }
        return migrations
    }

    /// Splits a migration file into statements: whole-line `--` comments are dropped and a statement ends with a
    /// semicolon at the end of a line (the schema's stated convention), unless that line is inside a `$$`-quoted
    /// function body, whose own statements end with semicolons.
    static func statements(in text: String) -> [String] {
        var statements: [String] = []
        var current: [Substring] = []
        var insideDollarQuote = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("--") { continue }
            current.append(line)
            if line.ranges(of: "$$").count % 2 == 1 { insideDollarQuote.toggle() }
            if !insideDollarQuote, trimmed.hasSuffix(";") {
                statements.append(current.joined(separator: "\n"))
                current = []
            }
        }
        let rest = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { statements.append(rest) }
        return statements
    }
}
