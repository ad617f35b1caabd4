import ArgumentParser

/// `wots-relay admin …`: operator commands on the relay host, against the database the relay uses.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Operator commands against the relay's database (run on the relay host; the relay may be running).",
        discussion: """
            Every subcommand takes --database (else $WOTS_DATABASE or $WOTS_DATABASE_URL, else that of the env file \
            named by --config, such as /etc/wots/relay.env, else sqlite:./wots-data/relay.sqlite) \
            and --json. The database is migrated to this binary's schema first, as serve would.
            """,
        subcommands: [
            AdminStats.self, AccountsCommand.self, InvitesCommand.self, BackupCommand.self, VerifyBackupCommand.self,
            MigrateCommand.self,
        ]
    )
}
