import ArgumentParser

/// `wots-relay admin invites …`
struct InvitesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invites",
        abstract: "Create, list or revoke invite codes (for serve --registration invite).",
        discussion: """
            A code is shown once, when it is created; the database keeps only its SHA-256. Give it to the person \
            you invite, who registers with `wots register --invite CODE`.
            """,
        subcommands: [InvitesCreate.self, InvitesList.self, InvitesRevoke.self]
    )
}
