import ArgumentParser

/// `wots-relay admin accounts …`
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List, show, suspend, unsuspend or delete accounts.",
        discussion: """
            ACCOUNT is a nickname or a token. Suspension and deletion take effect on running relays at once: their \
            sessions end and their open streams close.
            """,
        subcommands: [
            AccountsList.self, AccountsShow.self, AccountsSuspend.self, AccountsUnsuspend.self, AccountsDelete.self,
        ]
    )
}
