import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show this machine's account: nickname, token, fingerprint, relay.",
        discussion: """
            --json prints {"nickname", "token", "fingerprint", "relay", "home"}. Also checks the relay's \
            transparency log for this account: keys logged for its token, or another token logged for its \
            nickname, that this machine did not make are warned about loudly on stderr.
            """
    )

    @ParentCommand var root: Wots

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let messenger = try self.root.messenger()
        let profile = try messenger.whoami()
        for warning in await messenger.ownEntryWarnings() {
            Terminal.note("wots: WARNING: \(warning)")
        }
        if self.json {
            try Terminal.json(ProfileOutput(profile, home: messenger.store.home.path))
        } else {
            Terminal.out("nickname:    \(profile.nickname)")
            Terminal.out("token:       \(profile.token)")
            Terminal.out("fingerprint: \(profile.fingerprint.grouped)")
            Terminal.out("relay:       \(messenger.relay.baseURL)")
            Terminal.out("home:        \(messenger.store.home.path)")
        }
    }
}
