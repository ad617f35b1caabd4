import ArgumentParser
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin accounts unsuspend ACCOUNT`
struct AccountsUnsuspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsuspend",
        abstract: "Lift a suspension: the account can log in and send again."
    )

    @OptionGroup var options: AdminOptions

    @Argument(help: "The account's nickname or token.")
    var account: String

    func run() async throws {
        let summary = try await self.options.withDatabase { [account] opened in
            let entry = try await AccountReference(text: account).entry(in: opened.storage)
            try await opened.storage.administration.unsuspend(token: entry.token)
            return AccountSummary(entry, suspendedAt: nil)
        }
        try self.options.print(summary) { "unsuspended \(summary.nickname) (\(summary.token))" }
    }
}
