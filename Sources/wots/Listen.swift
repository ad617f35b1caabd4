import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show incoming messages as they arrive (queued ones first).",
        discussion: """
            One line per message, flushed at once; with --json one JSON object per line, the fields of \
            `wots inbox --json`. Each message is acknowledged after it was printed. First checks the relay's \
            transparency log for this account and warns on stderr about keys or a token logged for it that this \
            machine did not make. Then come messages you sent that expired at the relay undelivered ("your message \
            ID to bob expired undelivered after 30 days"; with --json {"kind": "expired", …} as in \
            `wots inbox --json`). Group messages and membership changes of every group are shown as they arrive, as \
            `wots inbox` shows them ("[NAME] sender: text"; with --json {"kind": "group_message"|"group_change"|\
            "group_refused", …}). Reconnects with back-off when the connection drops; stop with Ctrl-C.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    @OptionGroup var downloads: DownloadOptions

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let json = self.json
        let url = StreamClient(relay: messenger.relay, logger: Terminal.logger).url
        let display = ConversationDisplay(store: messenger.store)
        for warning in await messenger.ownEntryWarnings() {
            Terminal.note("wots: WARNING: \(warning)")
        }
        try await messenger.listen(
            status: { Terminal.status($0, url: url) },
            downloads: self.downloads.saver(),
            progress: TransferReport("downloading").callback,
            show: { message in
                if json {
                    try Terminal.json(message)
                } else {
                    Terminal.out(Terminal.describe(message))
                }
            },
            event: { event in
                // Receipts, timers and expiry as lines for people; scripts get messages only.
                if !json { await display.show(event) }
            },
            group: { event in
                if json {
                    try Terminal.json(event)
                } else {
                    Terminal.out(Terminal.describe(event))
                }
            },
            expired: { expired in
                if json {
                    try Terminal.json(expired)
                } else {
                    Terminal.out(Terminal.describe(expired))
                }
            }
        )
    }
}
