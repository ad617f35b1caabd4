import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace your identity keys (signed by the old and the new keys).",
        discussion: """
            Your contacts will see a changed key and must accept it with `wots trust`.

            --json prints {"oldFingerprint", "newFingerprint"}.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let (old, new) = try await self.root.messenger(secretFile: self.secret.secretFile).rotate()
        if self.json {
            try Terminal.json(["oldFingerprint": old.hex, "newFingerprint": new.hex])
            return
        }
        Terminal.out("rotated keys")
        Terminal.out("old fingerprint: \(old.grouped)")
        Terminal.out("new fingerprint: \(new.grouped)")
    }
}
