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

            --json prints {"nickname", "safetyNumber", "fingerprint", "pin"} where pin is "pinned_now", "pinned"             or "changed", and with "changed" also "pinnedFingerprint".
            """
    )

    @ParentCommand var root: Wots

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Argument(help: "The other person's nickname.")
    var nick: String

    func validate() throws { _ = try parseNickname(self.nick) }

    func run() async throws {
        let result = try await self.root.messenger().verify(try parseNickname(self.nick))
        let entry = result.entry
        if self.json {
            try Terminal.json(
                VerifyOutput(entry: entry, safetyNumber: result.safetyNumber, verdict: result.verdict)
            )
            return
        }
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

struct VerifyOutput: Encodable {
    var nickname: String
    var safetyNumber: String
    var fingerprint: String
    var pin: String
    var pinnedFingerprint: String?

    init(entry: DirectoryEntry, safetyNumber: SafetyNumber, verdict: ContactBook.Verdict) {
        self.nickname = entry.nickname.value
        self.safetyNumber = safetyNumber.groups.joined(separator: " ")
        self.fingerprint = entry.fingerprint.hex
        switch verdict {
        case .unknown: self.pin = "pinned_now"
        case .pinned: self.pin = "pinned"
        case .changed(let pinned):
            self.pin = "changed"
            self.pinnedFingerprint = pinned.fingerprint.hex
        }
    }
}
