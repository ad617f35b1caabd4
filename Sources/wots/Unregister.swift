import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Unregister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete your account: directory entry, stored keys, mailbox, and the local files.",
        discussion: "Asks you to type your nickname unless --yes is given; without a terminal, --yes is required."
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Flag(name: .long, help: "Do not ask for confirmation.")
    var yes = false

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let profile = try messenger.whoami()
        if !self.yes {
            guard Terminal.stdinIsTerminal else {
                throw ValidationError("unregistering deletes the account for good; add --yes to confirm")
            }
            Terminal.note("this deletes \(profile.nickname) at \(messenger.relay.baseURL) for good; type the nickname:")
            guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == profile.nickname.value else {
                throw WotsError(.invalidInput, "not confirmed; nothing was deleted")
            }
        }
        let removed = try await messenger.unregister()
        Terminal.out("deleted \(removed.nickname) (token \(removed.token))")
    }
}
