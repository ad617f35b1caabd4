import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Trust: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Accept NICK's current key (after checking `wots verify NICK` with them).",
        discussion:
            #"--json prints {"nickname", "fingerprint", "previousFingerprint"} (the last is null on first use)."#
    )

    @ParentCommand var root: Wots

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Argument(help: "The nickname whose published key to accept.")
    var nick: String

    func validate() throws { _ = try parseNickname(self.nick) }

    func run() async throws {
        let (entry, previous) = try await self.root.messenger().trust(try parseNickname(self.nick))
        if self.json {
            try Terminal.json(
                TrustOutput(
                    nickname: entry.nickname.value,
                    fingerprint: entry.fingerprint.hex,
                    previousFingerprint: previous?.fingerprint.hex
                )
            )
            return
        }
        if let previous, previous.fingerprint != entry.fingerprint {
            Terminal.out(
                "now trusting \(entry.nickname)'s key \(entry.fingerprint.grouped) (was \(previous.fingerprint.grouped))"
            )
        } else {
            Terminal.out("trusting \(entry.nickname)'s key \(entry.fingerprint.grouped)")
        }
    }
}

struct TrustOutput: Encodable {
    var nickname: String
    var fingerprint: String
    var previousFingerprint: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.nickname, forKey: .nickname)
        try container.encode(self.fingerprint, forKey: .fingerprint)
        try container.encode(self.previousFingerprint, forKey: .previousFingerprint)
    }

    private enum CodingKeys: String, CodingKey { case nickname, fingerprint, previousFingerprint }
}
