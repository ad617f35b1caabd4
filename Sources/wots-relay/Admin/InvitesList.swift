import ArgumentParser
import Foundation
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin invites list`
struct InvitesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List invites, newest first: id, standing, uses, expiry (never the codes)."
    )

    @OptionGroup var options: AdminOptions

    func run() async throws {
        let invites = try await self.options.withDatabase { opened in
            try await opened.storage.administration.invites()
        }
        let now = Date()
        let summaries = invites.map { InviteSummary($0, now: now) }
        try self.options.print(summaries) {
            summaries.isEmpty ? "no invites" : summaries.map(\.line).joined(separator: "\n")
        }
    }
}
