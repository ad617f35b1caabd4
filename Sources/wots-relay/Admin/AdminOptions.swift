import ArgumentParser
import Foundation
import Logging
import WotsCore
import WotsRelay

/// The options every `admin` subcommand shares: which database, and whether to answer in JSON.
struct AdminOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.",
            discussion: "Defaults to $WOTS_DATABASE_URL, else sqlite:./wots-data/relay.sqlite."
        )
    )
    var database: String?

    @Flag(help: "Print one JSON document on stdout instead of text.")
    var json = false

    var databaseURL: String {
        self.database ?? ProcessInfo.processInfo.environment["WOTS_DATABASE_URL"] ?? "sqlite:./wots-data/relay.sqlite"
    }

    /// Opens and migrates the database, runs `body` with it, and closes it again.
    func withDatabase<Result: Sendable>(
        _ body: @Sendable (OpenedDatabase) async throws -> Result
    ) async throws -> Result {
        let storage = StorageSettings(
            location: try DatabaseLocation(self.databaseURL),
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
