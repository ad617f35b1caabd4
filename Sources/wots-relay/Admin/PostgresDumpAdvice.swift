import Foundation
import WotsCore
import WotsStoragePostgres

/// What `admin backup` says about a PostgreSQL database: whether pg_dump can back it up, and the command to run.
struct PostgresDumpAdvice: Codable, Sendable {
    var serverVersion: String
    /// The pg_dump found on PATH, or nil.
    var pgDump: String?
    var pgDumpVersion: String?
    /// True when pg_dump is there and its major version is at least the server's.
    var ready: Bool
    /// The command to run, the password left out (pg_dump reads PGPASSWORD or ~/.pgpass).
    var command: String
    var problem: String?

    var text: String {
        var lines = ["PostgreSQL \(self.serverVersion): back it up with pg_dump (custom format), for example:"]
        lines.append("  \(self.command)")
        if let pgDump, let pgDumpVersion {
            lines.append("pg_dump: \(pgDump) (version \(pgDumpVersion))")
        }
        if let problem { lines.append("problem: \(problem)") }
        return lines.joined(separator: "\n")
    }

    /// Looks for pg_dump on PATH (or `$WOTS_PG_DUMP`) and compares its major version with the server's.
    static func check(_ database: PostgresDatabase) async throws -> PostgresDumpAdvice {
        let number = try await database.serverVersionNumber()
        let serverMajor = number / 10_000
        let serverVersion = "\(serverMajor).\(number % 10_000)"
        let configuration = database.configuration
        let command = Self.command(configuration)
        guard let pgDump = Self.findPgDump() else {
            return PostgresDumpAdvice(
                serverVersion: serverVersion,
                ready: false,
                command: command,
                problem: "pg_dump is not installed (\(Self.whereLooked)); install PostgreSQL \(serverMajor)'s client "
                    + "tools, e.g. apt-get install postgresql-client-\(serverMajor)"
            )
        }
        let version = Self.version(of: pgDump)
        let major = version.flatMap { Int($0.prefix(while: \.isNumber)) }
        var advice = PostgresDumpAdvice(
            serverVersion: serverVersion,
            pgDump: pgDump,
            pgDumpVersion: version,
            ready: false,
            command: Self.command(configuration, program: pgDump)
        )
        if let major, major >= serverMajor {
            advice.ready = true
        } else {
            advice.problem =
                "pg_dump \(version ?? "of unknown version") is older than the server (\(serverMajor)); "
                + "pg_dump must be at least the server's major version"
        }
        return advice
    }

    /// The pg_dump command line for `configuration`, its password masked.
    static func command(_ configuration: PostgresDatabase.Configuration, program: String = "pg_dump") -> String {
        var parts = [program, "--format=custom", "--file=wots-$(date +%Y%m%d-%H%M%S).dump"]
        parts += [
            "--host=\(configuration.host)", "--port=\(configuration.port)", "--username=\(configuration.username)",
        ]
        parts.append("--dbname=\(configuration.database)")
        let prefix = configuration.password == nil ? "" : "PGPASSWORD=******** "
        let tls = configuration.requiresTLS ? "PGSSLMODE=require " : ""
        return prefix + tls + parts.joined(separator: " ")
    }

    static var whereLooked: String {
        ProcessInfo.processInfo.environment["WOTS_PG_DUMP"].map { "$WOTS_PG_DUMP names \($0), not a program" }
            ?? "not on PATH"
    }

    static func findPgDump() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["WOTS_PG_DUMP"], !chosen.isEmpty {
            return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/pg_dump"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// `pg_dump --version` prints `pg_dump (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)`: the third word.
    static func version(of pgDump: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pgDump)
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let words = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        return words.count >= 3 ? String(words[2]) : nil
    }
}
