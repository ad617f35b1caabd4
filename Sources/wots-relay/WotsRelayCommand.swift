import ArgumentParser
import Foundation
import WotsCore
import WotsRelayLaunch

@main
struct WotsRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wots-relay",
        abstract: "The Wots relay: public directory and store-and-forward mailboxes for sealed envelopes.",
        discussion: """
            Exit status: 0 after a clean shutdown, 1 when the relay cannot start or stops on a failure (one line on \
            stderr says why), 64 for invalid arguments.
            """,
        subcommands: [Serve.self, AdminCommand.self],
        defaultSubcommand: Serve.self
    )

    /// Runs the command; a start-up failure is one line on stderr and exit status 1.
    static func main() async {
        do {
            var command = try Self.parseAsRoot(Self.argumentsWithConfiguration())
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as WotsError {
            FileHandle.standardError.write(Data("wots-relay: \(error.reason)\n".utf8))
            Foundation.exit(1)
        } catch {
            Self.exit(withError: error)
        }
    }

    /// The command line, with `serve` settings from the environment and a `--config` file added as flags.
    private static func argumentsWithConfiguration() throws -> [String] {
        let commandLine = Array(CommandLine.arguments.dropFirst())
        guard let invocation = ServeInvocation(commandLine) else { return commandLine }
        let sources = try ServeConfigurationSources.resolve(
            arguments: invocation.arguments,
            environment: ProcessInfo.processInfo.environment,
            options: ServeOption.ofServe
        )
        return invocation.commandLine(with: sources)
    }
}
