import ArgumentParser
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin accounts delete ACCOUNT --yes`
struct AccountsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an account as its owner's signed deletion would: entry, record, mailbox, sessions.",
        discussion: """
            One transaction. The nickname and token stay tombstoned, as after a user's own deletion, so nobody can \
            later register the nickname with other keys and be taken for the deleted account by its contacts.
            """
    )

    @OptionGroup var options: AdminOptions

    @Argument(help: "The account's nickname or token.")
    var account: String

    @Flag(help: "Confirm the deletion; it cannot be undone.")
    var yes = false

    func validate() throws {
        guard self.yes else { throw ValidationError("deleting an account cannot be undone: add --yes to confirm") }
    }

    func run() async throws {
        let summary = try await self.options.withDatabase { [account] opened in
            let entry = try await AccountReference(text: account).entry(in: opened.storage)
            let deleted = try await opened.storage.accounts.deleteAccount(token: entry.token)
            _ = try await opened.storage.blobs.forgetAccount(entry.token)
            return AccountSummary(deleted, suspendedAt: nil)
        }
        try self.options.print(summary) { "deleted \(summary.nickname) (\(summary.token))" }
    }
}
