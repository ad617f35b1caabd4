import ArgumentParser
import Foundation
import WotsClient
import WotsCore

struct Unlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask for the secret once and keep the account unlocked for this login session.",
        discussion: """
            The keys derived from the secret (never the secret itself, never an opened private key) are kept in the \
            Linux session keyring, readable only by processes of this login session, until --for has passed or \
            `wots lock`. Commands then use them instead of asking; --secret-file and WOTS_SECRET still take \
            precedence. Needs no network. SECURITY.md ("Unlocking for a session") says what this exposes.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("How long: 90s, 30m, 12h, 1d; default 12h, at most 7d.", valueName: "DURATION"),
        transform: { text in
            do {
                return try UnlockDuration(parsing: text)
            } catch let error as WotsError {
                throw ValidationError(error.reason)
            }
        }
    )
    var duration: UnlockDuration = .standard

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let profile = try messenger.unlockSession(for: self.duration.duration)
        let until = Date().addingTimeInterval(TimeInterval(self.duration.seconds))
        Terminal.out(
            "unlocked \(profile.nickname) for \(self.duration) (until \(Terminal.time(until)); `wots lock` ends it)"
        )
    }
}
