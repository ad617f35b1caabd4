import ArgumentParser
import Foundation
import Logging
import WotsCore
import WotsRelay
import WotsRelayLaunch

/// The options every `admin` subcommand shares: which database, and whether to answer in JSON.
struct AdminOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.",
            discussion:
                "Else $WOTS_DATABASE or $WOTS_DATABASE_URL, else the --config file's, else sqlite:./wots-data/relay.sqlite."
        )
    )
    var database: String?

    @Option(
        help: ArgumentHelp(
            "The relay's env file (as `serve --config` reads it, e.g. /etc/wots/relay.env): its database is used.",
            valueName: "FILE"
        )
    )
    var config: String?

    @Flag(help: "Print one JSON document on stdout instead of text.")
    var json = false

    /// --database, else WOTS_DATABASE or WOTS_DATABASE_URL from the environment, else from the --config file, else
    /// the default: the order `serve` uses.
    var databaseURL: String {
        get throws {
            if let database = self.database { return database }
            let environment = ProcessInfo.processInfo.environment
            if let url = Self.databaseSetting(in: environment.map { ($0.key, $0.value) }) { return url }
            if let config = self.config {
                let file = try EnvironmentFile.read(path: config)
                if let url = Self.databaseSetting(in: file.entries.map { ($0.key, $0.value) }) { return url }
            }
            return "sqlite:./wots-data/relay.sqlite"
        }
    }

    private static func databaseSetting(in settings: [(String, String)]) -> String? {
        let values = Dictionary(settings, uniquingKeysWith: { _, last in last })
        for key in ["WOTS_DATABASE", "WOTS_DATABASE_URL"] {
            if let value = values[key], !value.isEmpty { return value }
        }
        return nil
    }

    /// Opens and migrates the database, runs `body` with it, and closes it again.
    func withDatabase<Result: Sendable>(
        _ body: @Sendable (OpenedDatabase) async throws -> Result
    ) async throws -> Result {
        let storage = StorageSettings(
            location: try DatabaseLocation(try self.databaseURL),
            minimumFreeSpace: 0,
            operationTimeout: .seconds(30),
            startupTimeout: .seconds(10)
        )
        return try await storage.withOpened(logger: Logger(label: "wots.admin"), body)
    }

    /// Prints `value` as JSON (sorted keys, ISO 8601 dates) when `--json` was given, else `text()`.
    func print<Value: Encodable>(_ value: Value, text: () -> String) throws {
        if self.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
        } else {
            let line = text()
            FileHandle.standardOutput.write(Data((line.hasSuffix("\n") ? line : line + "\n").utf8))
        }
    }
}
