import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rebuild this machine's account from the relay with your secret.",
        discussion: """
            Restores into a home folder with no account, or into this account's own home to take the keys rotated \
            on another machine (contacts and seen messages stay). The relay hands over the sealed private keys only \
            to someone who proves the secret; they are opened here. --json prints the fields of `whoami --json`.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(name: .long, help: "The nickname to restore.")
    var nick: String

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func validate() throws { _ = try parseNickname(self.nick) }

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let profile = try await messenger.restore(nickname: try parseNickname(self.nick))
        if self.json {
            try Terminal.json(ProfileOutput(profile, home: messenger.store.home.path))
        } else {
            Terminal.out("restored \(profile.nickname) from \(profile.relay)")
            Terminal.out("token:       \(profile.token)")
            Terminal.out("fingerprint: \(profile.fingerprint.grouped)")
        }
    }
}
