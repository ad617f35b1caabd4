import ArgumentParser
import Foundation
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin accounts suspend ACCOUNT`
struct AccountsSuspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Suspend an account: it cannot log in or send, its sessions end and its streams close.",
        discussion: """
            The account stays in the directory and its nickname stays taken; mail to it is still accepted and \
            waits. `unsuspend` lifts it.
            """
    )

    @OptionGroup var options: AdminOptions

    @Argument(help: "The account's nickname or token.")
    var account: String

    func run() async throws {
        let summary = try await self.options.withDatabase { [account] opened in
            let entry = try await AccountReference(text: account).entry(in: opened.storage)
            try await opened.storage.administration.suspend(token: entry.token, at: Date())
            return AccountSummary(
                entry,
                suspendedAt: try await opened.storage.administration.suspension(of: entry.token)
            )
        }
        try self.options.print(summary) { "suspended \(summary.nickname) (\(summary.token))" }
    }
}
