import Foundation

/// A database of its own on the throwaway PostgreSQL server, made and dropped with `psql`.
struct TemporaryPostgresDatabase: Sendable {
    let url: String
    private let serverURL: String
    private let name: String

    static func create(baseURL: String) async throws -> TemporaryPostgresDatabase {
        let name = "wots_relay_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await Self.psql(baseURL, "CREATE DATABASE \(name)")
        guard let slash = baseURL.range(of: "/", options: .backwards) else {
            throw ProcessError(description: "\(baseURL) has no database path")
        }
        return TemporaryPostgresDatabase(url: baseURL[..<slash.lowerBound] + "/" + name, serverURL: baseURL, name: name)
    }

    func drop() async throws {
        try await Self.psql(self.serverURL, "DROP DATABASE IF EXISTS \(self.name) WITH (FORCE)")
    }

    private static func psql(_ url: String, _ command: String) async throws {
        let status = try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", command]
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard status == 0 else {
            throw ProcessError(description: "psql \(command) failed with status \(status)")
        }
    }
}
