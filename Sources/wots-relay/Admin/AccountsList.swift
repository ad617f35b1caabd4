import ArgumentParser
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin accounts list`: every live account, by nickname.
struct AccountsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every account by nickname, suspended ones marked."
    )

    @OptionGroup var options: AdminOptions

    @Flag(help: "Only suspended accounts.")
    var suspended = false

    func run() async throws {
        let accounts = try await self.options.withDatabase { opened in
            let suspensions = try await opened.storage.administration.suspensions()
            var accounts: [AccountSummary] = []
            var cursor: Cursor?
            repeat {
                let page = try await opened.storage.directory.page(limit: PageLimit.max, after: cursor)
                accounts += page.entries.map { AccountSummary($0, suspendedAt: suspensions[$0.token]) }
                cursor = page.next
            } while cursor != nil
            return accounts
        }
        let shown = self.suspended ? accounts.filter { $0.suspendedAt != nil } : accounts
        try self.options.print(shown) {
            shown.isEmpty ? "no accounts" : shown.map(\.line).joined(separator: "\n")
        }
    }
}
