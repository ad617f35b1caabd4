import Foundation

/// One `serve` option or flag as the argument parser declares it, with the environment variable that may set it.
///
/// The list is read from the parser's own description of `serve` (`--experimental-dump-help`), so an option added to
/// `Serve` or to one of its option groups gets its `WOTS_` variable without being listed anywhere else.
package struct ServeOption: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case option
        case flag
    }

    /// The long name without dashes: `tls-cert`.
    package var name: String
    package var kind: Kind
    package var isRepeating: Bool
    /// The parser's default, as text; nil when the option has none.
    package var defaultValue: String?
    /// The flag's `--no-…` name without dashes, when it has one.
    package var inversion: String?

    /// `--tls-cert` ↔ `WOTS_TLS_CERT`.
    package var environmentKey: String {
        "WOTS_" + self.name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// Older variable names that keep working, each mapped to the option it sets.
    package static let aliases: [String: String] = ["WOTS_DATABASE_URL": "database"]

    /// Options that only the command line sets: they say where the configuration comes from or what to do with it.
    package static let commandLineOnly: Set<String> = ["config", "check-config", "help", "version"]

    package init(
        name: String,
        kind: Kind,
        isRepeating: Bool = false,
        defaultValue: String? = nil,
        inversion: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.isRepeating = isRepeating
        self.defaultValue = defaultValue
        self.inversion = inversion
    }

    /// The options and flags in an `--experimental-dump-help` document, less those only the command line sets.
    package static func parse(dumpHelp: String) -> [ServeOption] {
        guard let tool = try? JSONDecoder().decode(DumpedTool.self, from: Data(dumpHelp.utf8)) else { return [] }
        return (tool.command.arguments ?? []).compactMap { argument in
            let longNames = (argument.names ?? []).filter { $0.kind == "long" }.map(\.name)
            guard let name = longNames.first, !Self.commandLineOnly.contains(name) else { return nil }
            let kind: Kind
            switch argument.kind {
            case "option": kind = .option
            case "flag": kind = .flag
            default: return nil
            }
            return ServeOption(
                name: name,
                kind: kind,
                isRepeating: argument.isRepeating,
                defaultValue: argument.defaultValue,
                inversion: longNames.dropFirst().first { $0 == "no-" + name }
            )
        }
    }
}

/// The part of the parser's `--experimental-dump-help` document that `ServeOption` reads.
private struct DumpedTool: Decodable {
    package struct Command: Decodable {
        var arguments: [Argument]?
    }

    package struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }

        var kind: String
        var names: [Name]?
        var isRepeating: Bool
        var defaultValue: String?
    }

    package var command: Command
}
