import ArgumentParser
import Foundation
import Logging
import WotsCore
import WotsStorage
import WotsStoragePostgres
import WotsStorageSQLite

/// `wots-relay admin migrate --from sqlite:PATH --to postgres://…`.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy a SQLite relay database into a new, empty PostgreSQL database, then verify the copy.",
        discussion: """
            Stop the relay first: the copy is of the SQLite database as it stands when the command starts. The \
            target gets its schema from the normal PostgreSQL migrations, must hold no relay data yet (a relay that \
            ever started on it has written its id: use a new database), and receives every account (directory \
            entries, tombstones included), private record, mailbox counter and queued message, acknowledged-message \
            memory, the relay's id and its secrets, in one transaction. Login challenges and sessions are not \
            copied: clients log in again. Afterwards every table's row count and checksum are read back from both \
            sides and compared. Refuses a source holding a table or column this wots-relay does not know. \
            --database is not \
            used.
            """
    )

    @OptionGroup var options: AdminOptions

    @Option(help: ArgumentHelp("The SQLite database to copy.", valueName: "sqlite:PATH"))
    var from: String

    @Option(
        help: ArgumentHelp(
            "The empty PostgreSQL database to fill.",
            discussion: "Defaults to $WOTS_DATABASE_URL, which keeps a password out of the process list.",
            valueName: "postgres://…"
        )
    )
    var to: String?

    var targetURL: String {
        self.to ?? ProcessInfo.processInfo.environment["WOTS_DATABASE_URL"] ?? ""
    }

    @Option(help: ArgumentHelp("Longest the copy may take, in seconds.", valueName: "seconds"))
    var timeout: Int = 3600

    func validate() throws {
        guard case .sqlite(let path) = try DatabaseLocation(self.from) else {
            throw ValidationError("--from must be sqlite:PATH")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("--from \(self.from): no such file")
        }
        guard !self.targetURL.isEmpty else {
            throw ValidationError("--to postgres://… (or $WOTS_DATABASE_URL) names the database to fill")
        }
        guard case .postgres = try DatabaseLocation(self.targetURL) else {
            throw ValidationError("--to must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        guard self.timeout > 0 else { throw ValidationError("--timeout must be at least 1 second") }
    }

    func run() async throws {
        let source = StorageSettings(
            location: try DatabaseLocation(self.from),
            minimumFreeSpace: 0,
            operationTimeout: .seconds(60),
            startupTimeout: .seconds(10)
        )
        let target = StorageSettings(
            location: try DatabaseLocation(self.targetURL),
            minimumFreeSpace: 0,
            operationTimeout: .seconds(60),
            startupTimeout: .seconds(10)
        )
        let timeout = Duration.seconds(self.timeout)
        let logger = Logger(label: "wots.admin")
        let report = try await source.withOpened(logger: logger) { sourceDatabase in
            try await target.withOpened(logger: logger) { targetDatabase in
                guard case .sqlite(let from) = sourceDatabase.backend, case .postgres(let into) = targetDatabase.backend
                else { throw WotsError(.invalidArgument, "migrate copies from SQLite into PostgreSQL only") }
                return try await DatabaseMigration.run(from: from, into: into, timeout: timeout)
            }
        }
        try self.options.print(report) { report.text }
    }
}

/// What `admin migrate` copied, and the check that the copy matches.
struct DatabaseMigration: Codable, Sendable {
    var tables: [TableSummary]
    /// Copying, then reading both sides back to compare.
    var copySeconds: Double
    var verifySeconds: Double

    var text: String {
        let lines = self.tables.map { "\($0.table): \($0.rows) rows copied, checksum \($0.checksum) matches" }
        let rows = self.tables.reduce(0) { $0 + $1.rows }
        let timing = String(format: "copied in %.2f s, verified in %.2f s", self.copySeconds, self.verifySeconds)
        return (lines + ["migrated \(rows) rows (\(timing)); every table matches"])
            .joined(separator: "\n")
    }

    static func run(from source: SQLiteDatabase, into target: PostgresDatabase, timeout: Duration) async throws
        -> DatabaseMigration
    {
        let started = ContinuousClock.now
        let snapshot = try source.portableSnapshot()
        let uncopied = try await PortableTable.uncopied(in: snapshot, postgres: false)
        guard uncopied.isEmpty else {
            throw WotsError(
                .invalidArgument,
                "the source holds what this wots-relay does not know how to copy (\(uncopied.joined(separator: ", ")))"
                    + "; use the wots-relay that made it"
            )
        }
        let unfilled = try await PortableTable.uncopied(in: target, postgres: true)
        guard unfilled.isEmpty else {
            throw WotsError(
                .invalidArgument,
                "the target has what this wots-relay would leave empty (\(unfilled.joined(separator: ", ")))"
                    + "; use the wots-relay that made it"
            )
        }
        let copied = try await target.load(PortableTable.sessionFree, from: snapshot, timeout: timeout)
        let verifying = ContinuousClock.now
        let expected = try await TableSurvey.of(snapshot)
        let found = try await TableSurvey.of(target)
        for (wanted, got) in zip(expected.summaries, found.summaries)
        where wanted != got || copied[wanted.table] != wanted.rows {
            throw WotsError(
                .storageCorrupted,
                "the copy of \(wanted.table) does not match: the source has \(wanted.rows) rows (checksum "
                    + "\(wanted.checksum.prefix(16))…), the target \(got.rows) "
                    + "(checksum \(got.checksum.prefix(16))…)"
            )
        }
        return DatabaseMigration(
            tables: expected.summaries,
            copySeconds: (verifying - started).seconds,
            verifySeconds: (ContinuousClock.now - verifying).seconds
        )
    }
}
