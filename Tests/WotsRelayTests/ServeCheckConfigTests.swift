import Foundation
import Testing

/// `wots-relay serve --check-config` run as the operator runs it: the real binary, its environment, a real file.
@Suite struct ServeCheckConfigTests {
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String

        /// Output lines with runs of spaces folded, so column widths do not matter.
        var rows: [String] {
            self.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        }
    }

    func run(_ arguments: [String], environment: [String: String]) async throws -> Outcome {
        try await offThePool { try Self.runBlocking(arguments, environment: environment) }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> Outcome {
        let process = Process()
        process.executableURL = RelayProcess.binary
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }

    func configFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wots-\(UUID().uuidString).env")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func anOptionOfServeIsTakenFromTheEnvironmentAndShownWithItsSource() async throws {
        let file = try self.configFile("# operator's file\nWOTS_SEND_RATE=3\nWOTS_PORT=8443\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await self.run(
            ["serve", "--check-config", "--config", file.path, "--port", "9443"],
            environment: [
                "WOTS_SEND_RATE": "7.5",
                "WOTS_DATABASE_URL": "postgres://wots:hunter2@db.internal/wots",
                "WOTS_HOME": "/home/someone/.wots",
            ]
        )
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.rows.contains("--send-rate 7.5 environment WOTS_SEND_RATE"), "\(outcome.output)")
        #expect(outcome.rows.contains("--port 9443 flag"))
        #expect(
            outcome.rows.contains("--database postgres://wots:********@db.internal/wots environment WOTS_DATABASE_URL")
        )
        #expect(outcome.rows.contains("--drain-timeout 8s default"))
        #expect(outcome.rows.contains("ignored environment (not serve settings): WOTS_HOME"))
        #expect(!outcome.output.contains("hunter2") && !outcome.errors.contains("hunter2"))
    }

    @Test func aValueFromTheFileIsCheckedAsTheFlagIs() async throws {
        let file = try self.configFile("WOTS_SEND_RATE=fast\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await self.run(["serve", "--check-config", "--config", file.path], environment: [:])
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("send-rate"), "\(outcome.errors)")
    }

    @Test func anUnknownKeyInTheFileStopsTheRelayNamingKeyAndLine() async throws {
        let file = try self.configFile("WOTS_PORT=8443\nWOTS_SEND_RAET=5\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await self.run(["serve", "--config", file.path], environment: [:])
        #expect(outcome.status == 1)
        #expect(
            outcome.errors == "wots-relay: \(file.path):2: WOTS_SEND_RAET is not a serve setting "
                + "(each --name of wots-relay serve --help is WOTS_NAME)\n"
        )
    }
}
