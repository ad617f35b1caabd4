import ArgumentParser

@main
struct WotsRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wots-relay",
        abstract: "The Wots relay: public directory and store-and-forward mailboxes for sealed envelopes.",
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self
    )
}
