import ArgumentParser
import WotsClient

struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change this account's settings (kept on this machine).",
        discussion: """
            --read-receipts off stops telling senders when you saw their messages (delivered receipts are still \
            sent: they only say your client stored the message). With no option, prints the settings; --json \
            prints {"readReceipts": BOOL}.
            """
    )

    @ParentCommand var root: Wots

    @Option(
        name: .customLong("read-receipts"),
        help: ArgumentHelp("Tell senders when you read their messages.", valueName: "on|off")
    )
    var readReceipts: Switch?

    @Flag(name: .long, help: "Print the settings as JSON.")
    var json = false

    func run() throws {
        let messenger = try self.root.messenger()
        let settings = try messenger.updateSettings(readReceipts: self.readReceipts.map { $0 == .on })
        if self.json {
            try Terminal.json(settings)
        } else {
            Terminal.out("read receipts: \(settings.readReceipts ? "on" : "off")")
        }
    }
}

/// `on` or `off`, as options spell a boolean setting.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}
