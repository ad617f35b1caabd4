import ArgumentParser
import Foundation
import WotsCore
import WotsStorageSQLite

/// `wots-relay admin backup --to FILE`.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a SQLite database to FILE while the relay runs; for PostgreSQL, print the pg_dump command.",
        discussion: """
            SQLite: the online backup API copies the database as it stands when the backup starts, while the relay \
            goes on serving; FILE is created owner-only (0600) and appears whole or not at all (written under a \
            temporary name, flushed, then renamed). An existing FILE is never overwritten. FILE.sha256 records its \
            SHA-256 (sha256sum format). Check both with `wots-relay admin verify-backup FILE`.
            PostgreSQL: back up with pg_dump. This checks that pg_dump is installed (on PATH, or the program \
            $WOTS_PG_DUMP names) and that its major version is at least the server's, and prints the command to run \
            (password masked; pass it in PGPASSWORD). Exits 1 when pg_dump is missing or too old.
            """
    )

    @OptionGroup var options: AdminOptions

    @Option(help: ArgumentHelp("The backup file to create (SQLite).", valueName: "file"))
    var to: String?

    func validate() throws {
        if try self.options.databaseURL.hasPrefix("sqlite:"), (self.to ?? "").isEmpty {
            throw ValidationError("--to FILE is required for a SQLite database")
        }
    }

    func run() async throws {
        let target = self.to
        let options = self.options
        let outcome = try await options.withDatabase { opened -> BackupOutcome in
            switch opened.backend {
            case .sqlite(let database):
                guard let target else { throw WotsError(.invalidArgument, "--to FILE is required for SQLite") }
                let started = ContinuousClock.now
                let bytes = try await database.backup(to: target)
                let seconds = (ContinuousClock.now - started).seconds
                let checksum = try BackupChecksum.record(for: target)
                return .sqlite(SQLiteBackupReport(file: target, bytes: bytes, seconds: seconds, sha256: checksum))
            case .postgres(let database):
                return .postgres(try await PostgresDumpAdvice.check(database))
            }
        }
        switch outcome {
        case .sqlite(let report):
            try options.print(report) {
                "backed up to \(report.file): \(report.bytes) bytes in \(String(format: "%.2f", report.seconds)) s, "
                    + "SHA-256 \(report.sha256) (in \(BackupChecksum.sidecar(of: report.file)))"
            }
        case .postgres(let advice):
            try options.print(advice) { advice.text }
            if !advice.ready {
                throw WotsError(.invalidArgument, advice.problem ?? "pg_dump cannot back up this server")
            }
        }
    }
}

enum BackupOutcome: Sendable {
    case sqlite(SQLiteBackupReport)
    case postgres(PostgresDumpAdvice)
}

/// What `admin backup` on SQLite reports.
struct SQLiteBackupReport: Codable, Sendable {
    var file: String
    var bytes: Int64
    var seconds: Double
    /// Also written to FILE.sha256.
    var sha256: String
}
