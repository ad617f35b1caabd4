import ArgumentParser
import WotsClient
import WotsCore

struct Lock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget the keys kept by `wots unlock`: the next command asks for the secret again.",
        discussion: "Succeeds whether or not the account was unlocked. Needs no secret and no network."
    )

    @ParentCommand var root: Wots

    func run() async throws {
        let (profile, wasUnlocked) = try self.root.messenger().lockSession()
        Terminal.out(wasUnlocked ? "locked \(profile.nickname)" : "\(profile.nickname) was not unlocked")
    }
}
