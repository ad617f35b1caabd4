import ArgumentParser
import WotsClient
import WotsCore

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the conversation with someone, as kept (encrypted) on this machine.",
        discussion: """
            Every text and attachment sent or received by `wots send`, `inbox`, `listen` and `chat` is kept in \
            history.sqlite in the account folder, its content encrypted under a key only the secret opens \
            (SECURITY.md, "History at rest"). Sent messages show how far they got: ✓ sent, ✓✓ delivered, read. \
            --search TEXT keeps messages whose text or attachment name contains TEXT (ignoring case), searched \
            after decryption. Disappearing messages whose timer ran out are deleted first ("a disappearing \
            message expired"). --json prints one JSON array of {"id", "from", "fromToken", "direction", "sentAt", \
            "expiresAt", "status", "type", "text", "attachment"}. --group NAME shows a group's conversation instead \
            (its name or an id prefix): a message you sent is marked with how many members have it, "✓✓ 2/3 · read \
            1/3", and its JSON adds "receipts" {"members", "delivered", "read", "statuses": [{"token", "nickname", \
            "status"}]}, one status per member it went to.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(name: .long, help: ArgumentHelp("Whose conversation.", valueName: "NICK"))
    var with: String?

    @Option(name: .long, help: ArgumentHelp("A group's conversation instead.", valueName: "NAME"))
    var group: String?

    @Option(name: .long, help: ArgumentHelp("Only messages containing TEXT.", valueName: "TEXT"))
    var search: String?

    @Flag(name: .long, help: "Print the messages as a JSON array.")
    var json = false

    func validate() throws {
        switch (self.with, self.group) {
        case (let with?, nil): _ = try parseNickname(with)
        case (nil, _?): break
        default: throw ValidationError("give exactly one of --with NICK and --group NAME")
        }
    }

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        var (items, expired) = (Array<HistoryItem>(), 0)
        if let group {
            items = try await messenger.groupHistory(group).items.filter { self.search.map($0.matches) ?? true }
        } else {
            (items, expired) = try await messenger.history(
                with: try parseNickname(self.with ?? ""),
                search: self.search
            )
        }
        for _ in 0..<expired { Terminal.note("a disappearing message expired") }
        if self.json {
            try Terminal.json(items)
        } else if items.isEmpty {
            Terminal.out(self.search == nil ? "no messages" : "no messages match")
        } else {
            for item in items { Terminal.out(Terminal.describe(item)) }
        }
    }
}
