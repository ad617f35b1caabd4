import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Trust: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Accept NICK's current key (after checking `wots verify NICK` with them)."
    )

    @ParentCommand var root: Wots

    @Argument(help: "The nickname whose published key to accept.")
    var nick: String

    func validate() throws { _ = try parseNickname(self.nick) }

    func run() async throws {
        let (entry, previous) = try await self.root.messenger().trust(try parseNickname(self.nick))
        if let previous, previous.fingerprint != entry.fingerprint {
            Terminal.out(
                "now trusting \(entry.nickname)'s key \(entry.fingerprint.grouped) (was \(previous.fingerprint.grouped))"
            )
        } else {
            Terminal.out("trusting \(entry.nickname)'s key \(entry.fingerprint.grouped)")
        }
    }
}
