import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the safety number you and NICK should both see.",
        discussion: """
            Compare the number with NICK in person or on a call: if it matches, nobody is in between. Pins \
            NICK's key on first use; warns when the published key is not the pinned one.
            """
    )

    @ParentCommand var root: Wots

    @Argument(help: "The other person's nickname.")
    var nick: String

    func validate() throws { _ = try parseNickname(self.nick) }

    func run() async throws {
        let result = try await self.root.messenger().verify(try parseNickname(self.nick))
        let entry = result.entry
        Terminal.out("safety number with \(entry.nickname):")
        let groups = result.safetyNumber.groups
        for row in stride(from: 0, to: groups.count, by: 4) {
            Terminal.out("  " + groups[row..<min(row + 4, groups.count)].joined(separator: " "))
        }
        Terminal.out("\(entry.nickname)'s fingerprint: \(entry.fingerprint.grouped)")
        switch result.verdict {
        case .unknown: Terminal.note("pinned \(entry.nickname)'s key (first use)")
        case .pinned: break
        case .changed(let pinned):
            Terminal.note(
                "wots: warning: \(entry.nickname)'s key changed (pinned \(pinned.fingerprint.grouped)); if the number "
                    + "matches, run `wots trust \(entry.nickname)`"
            )
        }
    }
}
