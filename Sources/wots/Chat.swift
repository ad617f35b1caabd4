import ArgumentParser
import Foundation
import Glibc
import WotsClient
import WotsCore
import WotsCrypto

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Talk with someone: lines you type are sent, their messages appear as they arrive.",
        discussion: """
            End with Ctrl-D. The recipient's key is checked (and pinned on first use) as for `wots send`. Typing is \
            read only once the account is unlocked and the chat is open: anything typed before is discarded, never \
            sent. Blank lines are not sent. Messages you sent that expired at the relay undelivered are reported \
            first ("your message ID to bob expired undelivered after 30 days"). What you send shows "✓ sent" \
            once the relay took it, "✓✓ delivered" when bob's client stored it and "✓✓ read" when bob saw it \
            (unless bob turned read receipts off). "bob is typing…" shows while bob types (your typing is sent \
            likewise, never stored by the relay). `/disappear 30s|5m|1h|1d|off` sets the conversation's \
            disappearing timer for both sides: later messages vanish from both machines and the relay when it \
            runs out ("a disappearing message expired"). --no-read-receipts (or `wots settings --read-receipts \
            off`) stops telling bob what you read. `/send PATH` sends a file as `wots send --file` does (progress on \
            stderr, then its ✓ marks like a text); an attachment bob sends is downloaded, checked and saved in \
            --download-dir under a name no file has, and its line prints the saved path (or why it was refused). \
            `/help` lists these commands. --group NAME chats in a group instead (its name or an id prefix): your \
            lines go to every other member, and the group's messages and membership changes appear as `wots inbox` \
            prints them ("[NAME] alice: hi"); other groups' messages wait for `wots inbox`. In a group, your \
            messages show how many members have them ("✓✓ 2/3 · read 1/3", receipts each member's client sends \
            to you alone), "alice is typing…" shows while a member types, `/disappear` sets the group's timer for \
            every member, `/send PATH` uploads the file once for all members, and a member whose key is not the one \
            the group recorded, or not the one you pinned, is named when the chat opens with the `wots verify` / \
            `wots trust` / `wots group rekey` steps that settle it.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(name: .long, help: ArgumentHelp("Who to talk with.", valueName: "NICK"))
    var with: String?

    @Option(name: .long, help: ArgumentHelp("Chat in a group instead (its name or id prefix).", valueName: "NAME"))
    var group: String?

    @Flag(name: .customLong("no-read-receipts"), help: "Do not tell the peer which messages you read.")
    var noReadReceipts = false

    @OptionGroup var downloads: DownloadOptions

    func validate() throws {
        switch (self.with, self.group) {
        case (let with?, nil): _ = try parseNickname(with)
        case (nil, _?): break
        default: throw ValidationError("give exactly one of --with NICK and --group NAME")
        }
    }

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        if let group { return try await self.chat(in: group, messenger: messenger) }
        let nickname = try parseNickname(self.with ?? "")
        let url = StreamClient(relay: messenger.relay, logger: Terminal.logger).url
        let display = ConversationDisplay(store: messenger.store)
        try await messenger.chat(
            with: nickname,
            readReceipts: !self.noReadReceipts,
            downloads: self.downloads.saver(),
            transfers: ChatTransfers(
                upload: TransferReport("uploading").callback,
                download: TransferReport("downloading").callback
            ),
            input: {
                if Terminal.stdinIsTerminal { tcflush(STDIN_FILENO, TCIFLUSH) }
                // The terminal is in key mode before the chat says it is open: a Ctrl-D typed in the canonical mode
                // it leaves would be taken by the line discipline and never reach the reader.
                let lines = ChatInputReader.open()
                if Terminal.stderrIsTerminal { Terminal.note("chatting with \(nickname); Ctrl-D ends") }
                return lines
            },
            status: { Terminal.status($0, url: url) },
            event: { await display.show($0) },
            failed: { error in Terminal.note("wots: not sent: \(error.reason)") },
            notice: { Terminal.out($0) },
            expired: { expired in Terminal.out(Terminal.describe(expired)) }
        )
    }

    private func chat(in group: String, messenger: Messenger) async throws {
        let url = StreamClient(relay: messenger.relay, logger: Terminal.logger).url
        let display = ConversationDisplay(store: messenger.store)
        try await messenger.groupChat(
            group,
            readReceipts: !self.noReadReceipts,
            downloads: self.downloads.saver(),
            transfers: ChatTransfers(
                upload: TransferReport("uploading").callback,
                download: TransferReport("downloading").callback
            ),
            input: {
                if Terminal.stdinIsTerminal { tcflush(STDIN_FILENO, TCIFLUSH) }
                let lines = ChatInputReader.open()
                if Terminal.stderrIsTerminal { Terminal.note("chatting in \(group); Ctrl-D ends") }
                return lines
            },
            status: { Terminal.status($0, url: url) },
            event: { Terminal.out(Terminal.describe($0)) },
            activity: { await display.show($0) },
            warning: { Terminal.note("wots: WARNING: \($0)") },
            sent: { Terminal.out("  ✓ sent to \($0.recipients) members (\($0.id.lowercasedString.prefix(8)))") },
            failed: { error in Terminal.note("wots: not sent: \(error.reason)") },
            notice: { Terminal.out($0) }
        )
    }
}
