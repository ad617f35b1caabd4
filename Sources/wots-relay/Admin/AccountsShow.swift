import ArgumentParser
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin accounts show ACCOUNT`
struct AccountsShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one account: keys' fingerprint, registration, suspension, waiting messages."
    )

    @OptionGroup var options: AdminOptions

    @Argument(help: "The account's nickname or token.")
    var account: String

    func run() async throws {
        let summary = try await self.options.withDatabase { [account] opened in
            let entry = try await AccountReference(text: account).entry(in: opened.storage)
            return AccountSummary(
                entry,
                suspendedAt: try await opened.storage.administration.suspension(of: entry.token),
                queuedMessages: try await opened.storage.mailboxes.depth(of: entry.token)
            )
        }
        try self.options.print(summary) { summary.details }
    }
}
