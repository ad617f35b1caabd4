import ArgumentParser
import Foundation
import WotsCore
import WotsStorage
import WotsStorageSQLite

/// `wots-relay admin verify-backup FILE`.
struct VerifyBackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-backup",
        abstract: "Check a SQLite backup before restoring it: integrity, schema version, rows and content per table.",
        discussion: """
            Opens FILE read-only (nothing in it is changed or migrated) and checks, in order: that it is a SQLite \
            file; that its SHA-256 matches FILE.sha256 when that exists (admin backup writes it); PRAGMA integrity_check; \
            that its schema versions are ones this wots-relay knows; that it holds no table or column this \
            wots-relay would neither copy nor knowingly leave behind; then reads every table of session-free state, \
            counting rows, \
            computing a checksum (the one `admin migrate` compares) and checking that every queued envelope still \
            parses. Exits 0 when every check passes, 1 with one line on stderr naming the first failure otherwise. \
            --database is not used.
            """
    )

    @OptionGroup var options: AdminOptions

    @Argument(help: ArgumentHelp("The backup file.", valueName: "file"))
    var file: String

    func run() async throws {
        let report = await BackupVerification.run(path: self.file)
        try self.options.print(report) { report.text }
        if let problem = report.problems.first {
            let more = report.problems.count > 1 ? " (and \(report.problems.count - 1) more)" : ""
            throw WotsError(.storageCorrupted, "\(self.file) failed verification: \(problem)\(more)")
        }
    }
}

/// What `admin verify-backup` found.
struct BackupVerification: Codable, Sendable {
    var file: String
    var ok = false
    var bytes: Int64 = 0
    /// Whether the file still has the SHA-256 recorded beside it (FILE.sha256) when the backup was made.
    var recordedChecksum = BackupChecksum.Finding.absent
    var schemaVersions: [Int] = []
    var tables: [TableSummary] = []
    var problems: [String] = []

    var text: String {
        var lines: [String] = []
        for table in self.tables {
            lines.append("\(table.table): \(table.rows) rows, checksum \(table.checksum)")
        }
        lines.append("SHA-256 recorded beside it: \(self.recordedChecksum.rawValue)")
        lines.append(
            self.ok
                ? "\(self.file): ok (\(self.bytes) bytes, schema \(self.schemaVersions.last.map(String.init) ?? "?"))"
                : "\(self.file): FAILED"
        )
        return lines.joined(separator: "\n")
    }

    /// Runs every check on the file at `path`.
    static func run(path: String) async -> BackupVerification {
        var report = await Self.check(path: path)
        report.ok = report.problems.isEmpty
        return report
    }

    /// Runs the checks in order, stopping at the first that leaves nothing else worth checking.
    private static func check(path: String) async -> BackupVerification {
        var report = BackupVerification(file: path)
        do {
            let file = try SQLiteBackupFile(path: path)
            defer { file.close() }
            report.bytes = file.size
            let (finding, difference) = try BackupChecksum.check(path)
            report.recordedChecksum = finding
            if let difference { report.problems.append(difference) }
            let integrity = try await file.integrityProblems()
            guard integrity.isEmpty else {
                report.problems += integrity.prefix(5).map { "integrity check: \($0)" }
                return report
            }
            guard let versions = try await file.schemaVersions() else {
                report.problems += ["it is a SQLite file but not a Wots relay database (no schema_migrations table)"]
                return report
            }
            report.schemaVersions = versions
            let known = Set(try SQLiteBackupFile.knownSchemaVersions())
            let foreign = versions.filter { !known.contains($0) }
            guard foreign.isEmpty else {
                report.problems += [
                    "schema versions \(foreign.map(String.init).joined(separator: ", ")) are unknown to this "
                        + "wots-relay (it knows up to \(known.max() ?? 0)): made by a newer relay?"
                ]
                return report
            }
            let uncopied = try await PortableTable.uncopied(in: file.rows, postgres: false)
            guard uncopied.isEmpty else {
                report.problems += ["it holds what this wots-relay does not know: \(uncopied.joined(separator: ", "))"]
                return report
            }
            let survey = try await TableSurvey.of(file.rows)
            report.tables = survey.summaries
            report.problems += survey.problems
        } catch let error as WotsError {
            report.problems.append(error.reason)
        } catch {
            report.problems.append("\(error)")
        }
        return report
    }
}
