import ArgumentParser
import Foundation
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin invites revoke ID`
struct InvitesRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke an invite: its code admits no more registrations."
    )

    @OptionGroup var options: AdminOptions

    @Argument(help: "The invite's id, as `invites list` shows it.")
    var id: String

    func run() async throws {
        let invite = try await self.options.withDatabase { [id] opened in
            try await opened.storage.administration.revokeInvite(id: id, at: Date())
        }
        let summary = InviteSummary(invite)
        try self.options.print(summary) { "revoked invite \(summary.id) (used \(summary.uses)/\(summary.maximumUses))" }
    }
}
