import ArgumentParser
import Foundation
import Logging
import WotsClient
import WotsCore
import WotsCrypto

/// `wots`: the command-line client of a Wots relay.
@main
struct Wots: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wots",
        abstract: "End-to-end encrypted messages through a Wots relay.",
        discussion: """
            The relay comes from --relay, WOTS_RELAY, the account's own relay, or http://127.0.0.1:8080; an \
            https:// relay must have a certificate the system trusts, or one signed by a CA of --ca-file \
            (WOTS_CA_FILE). Local \
            state lives under --home, WOTS_HOME, $XDG_DATA_HOME/wots or ~/.local/share/wots (folder 0700, files \
            0600; private keys only ever stored sealed). The secret comes from --secret-file, WOTS_SECRET, the keys \
            kept by `wots unlock`, or is asked on the terminal.

            Exit status: 0 success; 1 failure, with one line "wots: …" on stderr; 64 usage error (an unknown, \
            missing or invalid argument), with one line "wots: …; see `wots COMMAND --help`" on stderr; 3 the \
            relay's transparency log failed a check (a fork or rollback, keys it does not prove); 4 `wots send \
            --wait-delivered` sent but saw no delivered receipt in time; 130 \
            interrupted (Ctrl-C); 141 output closed early (SIGPIPE, as in `wots directory list | head -1`).
            """,
        subcommands: [
            Register.self, Whoami.self, DirectoryCommand.self, Send.self, Inbox.self, Listen.self, Chat.self,
            Verify.self, Trust.self, Restore.self, Rotate.self, Unregister.self, Unlock.self, Lock.self, Settings.self,
            History.self, GroupCommand.self,
        ]
    )

    @Option(name: .long, help: ArgumentHelp("Relay URL (http:// or https://).", valueName: "URL"))
    var relay: String?

    @Option(name: .long, help: ArgumentHelp("Folder of the local account.", valueName: "DIR"))
    var home: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for an https:// relay.",
            discussion: "For a relay with a private or self-signed CA; defaults to $WOTS_CA_FILE. The system's "
                + "authorities stay trusted.",
            valueName: "FILE"
        )
    )
    var caFile: String?

    func validate() throws {
        if let relay {
            do {
                _ = try RelayClient.normalize(relay)
            } catch let error as WotsError {
                throw ValidationError(error.reason)
            }
        }
        if let home, home.isEmpty { throw ValidationError("--home must not be empty") }
        if let caFile, caFile.isEmpty { throw ValidationError("--ca-file must not be empty") }
    }

    /// Builds the client from flags and environment; only the executable reads them.
    func messenger(secretFile: String? = nil) throws -> Messenger {
        let environment = ProcessInfo.processInfo.environment
        let relay = self.relay ?? environment["WOTS_RELAY"].flatMap { $0.isEmpty ? nil : $0 }
        let home =
            self.home.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? LocalStore.defaultHome(environment: environment)
        let secret: SecretSource
        if let secretFile {
            secret = .file(URL(fileURLWithPath: secretFile))
        } else if let value = environment["WOTS_SECRET"] {
            secret = .value(value)
        } else {
            secret = .terminal
        }
        let caFile = self.caFile ?? environment["WOTS_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let trust = try caFile.map { try RelayTrust(caFile: $0) } ?? .system
        return try Messenger(
            configuration: Messenger.Configuration(
                relay: relay,
                home: home,
                trust: trust,
                secret: secret,
                unlockCache: SessionKeyring(),
                notice: { Terminal.note($0) }
            ),
            logger: Terminal.logger
        )
    }

    /// Runs the command; every failure becomes one line on stderr and an exit status (README's table).
    static func main() async {
        do {
            var command = try Self.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            Self.finish(with: error)
        }
    }
}

/// Options of the commands that open the private keys.
struct SecretOptions: ParsableArguments {
    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp(
            "Read the secret from the first line of FILE (before WOTS_SECRET and `wots unlock`).",
            valueName: "FILE"
        )
    )
    var secretFile: String?
}

/// Parses a nickname argument, turning a broken rule into a usage error.
/// Names to look up are read as `Nickname(naming:)` (an account may predate the first-character rule); a name being
/// registered must follow every rule (`registering: true`).
func parseNickname(_ text: String, registering: Bool = false) throws -> Nickname {
    do {
        return try registering ? Nickname(text) : Nickname(naming: text)
    } catch let error as WotsError {
        throw ValidationError(error.reason)
    }
}
