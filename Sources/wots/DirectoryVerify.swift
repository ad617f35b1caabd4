import ArgumentParser
import Foundation
import WotsClient
import WotsCore

extension DirectoryCommand {
    struct VerifyLog: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check the relay's transparency log against what this machine saw before and the directory.",
            discussion: """
                Verifies the relay's signed checkpoint with the log key pinned at first use and its consistency with \
                the newest checkpoint seen before (a fork or a rollback exits 3). Then, without --full, proves 16 \
                random leaves included; with --full, fetches every leaf, hashes them into the signed root, checks \
                each token's chain and every owner signature, and compares the whole directory with the replay. \
                --json prints {"treeSize", "rootHash", "checkedLeaves", "directoryEntries", "full"}.
                """
        )

        @ParentCommand var root: Wots

        @Flag(name: .long, help: "Replay the whole log and compare the directory with it.")
        var full = false

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func run() async throws {
            let audit = try await self.root.messenger().auditLog(full: self.full) { count in
                Terminal.progress("checked \(count) leaves…")
            }
            Terminal.endProgress()
            if self.json {
                try Terminal.json(audit)
                return
            }
            Terminal.out("log:         \(audit.treeSize) leaves, root \(audit.rootHash)")
            Terminal.out("consistent:  yes, with every checkpoint this machine saw before")
            if audit.full {
                Terminal.out("replayed:    every leaf; the directory's \(audit.directoryEntries) entries match it")
            } else {
                Terminal.out("sampled:     \(audit.checkedLeaves) leaves proven included (--full replays them all)")
            }
        }
    }
}
