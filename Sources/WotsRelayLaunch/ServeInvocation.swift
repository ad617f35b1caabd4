/// Finds the `serve` arguments in a `wots-relay` command line, so the environment and a `--config` file can add to
/// them before parsing. `serve` is the default subcommand: arguments that name no other subcommand are its own.
package struct ServeInvocation: Sendable, Equatable {
    /// What comes before the serve arguments (`["serve"]`, or nothing when the subcommand was left out).
    package var prefix: [String]
    package var arguments: [String]

    private static let otherCommands: Set<String> = ["admin", "help"]
    private static let requests: Set<String> = [
        "-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help",
    ]

    /// nil when the command line is not `serve`, or asks for help or a completion script rather than a relay.
    package init?(_ commandLine: [String]) {
        if let first = commandLine.first, Self.otherCommands.contains(first) { return nil }
        let withoutFlags = commandLine.first == "serve" ? Array(commandLine.dropFirst()) : commandLine
        let beforeTerminator = withoutFlags.prefix { $0 != "--" }
        guard
            !beforeTerminator.contains(where: {
                Self.requests.contains($0.split(separator: "=").first.map(String.init) ?? $0)
            })
        else { return nil }
        self.prefix = commandLine.first == "serve" ? ["serve"] : []
        self.arguments = withoutFlags
    }

    /// The full command line to parse: the serve arguments with the environment's and the file's settings.
    package func commandLine(with sources: ServeConfigurationSources) -> [String] {
        self.prefix + sources.arguments
    }
}
