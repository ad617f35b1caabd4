import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show this machine's account: nickname, token, fingerprint, relay.",
        discussion: #"--json prints {"nickname", "token", "fingerprint", "relay", "home"}."#
    )

    @ParentCommand var root: Wots

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let messenger = try self.root.messenger()
        let profile = try messenger.whoami()
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
