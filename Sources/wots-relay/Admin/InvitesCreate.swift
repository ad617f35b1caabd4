import ArgumentParser
import Foundation
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin invites create [--uses N] [--expires DURATION]`
struct InvitesCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an invite code and print it (this once only)."
    )

    @OptionGroup var options: AdminOptions

    @Option(help: "How many registrations the code admits.")
    var uses = 1

    @Option(
        help: ArgumentHelp(
            "How long the code stays valid (for example 12h, 7d); default forever.",
            valueName: "DURATION"
        )
    )
    var expires: String?

    func validate() throws {
        guard (1...1_000_000).contains(self.uses) else {
            throw ValidationError("--uses \(self.uses) is out of range (1–1000000)")
        }
        do {
            _ = try self.lifetime()
        } catch let error as WotsError {
            throw ValidationError(error.reason)
        }
    }

    private func lifetime() throws -> Duration? {
        guard let expires else { return nil }
        let lifetime = try HumanUnits.duration(expires, name: "--expires")
        guard lifetime > .zero else { throw WotsError(.invalidArgument, "--expires must be longer than 0") }
        return lifetime
    }

    func run() async throws {
        let code = InviteCode()
        let now = Date()
        let expiresAt = try self.lifetime().map { now.addingTimeInterval(Double($0.components.seconds)) }
        let invite = code.invite(uses: self.uses, createdAt: now, expiresAt: expiresAt)
        try await self.options.withDatabase { opened in
            try await opened.storage.administration.createInvite(invite)
        }
        let summary = InviteSummary(invite, code: code.text, now: now)
        try self.options.print(summary) {
            """
            \(code.text)
            invite \(summary.id): \(summary.maximumUses) use(s), \
            \(summary.expiresAt.map { "expires \($0.formatted(.iso8601))" } ?? "never expires"). \
            The code is shown only now; the relay keeps its hash.
            """
        }
    }
}
