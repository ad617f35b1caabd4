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
            first ("your message ID to bob expired undelivered after 30 days").
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(name: .long, help: ArgumentHelp("Who to talk with.", valueName: "NICK"))
    var with: String

    func validate() throws { _ = try parseNickname(self.with) }

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let nickname = try parseNickname(self.with)
        let url = StreamClient(relay: messenger.relay, logger: Terminal.logger).url
        try await messenger.chat(
            with: nickname,
            input: { Self.openInput(chattingWith: nickname) },
            status: { Terminal.status($0, url: url) },
            show: { message in Terminal.out(Terminal.describe(message)) },
            sent: { _ in },
            failed: { error in Terminal.note("wots: not sent: \(error.reason)") },
            expired: { expired in Terminal.out(Terminal.describe(expired)) }
        )
    }

    /// Starts reading lines from stdin. On a terminal, whatever was typed before this moment (while the secret was
    /// asked or the account unlocked) is discarded first, so it can never be sent.
    static func openInput(chattingWith nickname: Nickname) -> AsyncStream<String> {
        if Terminal.stdinIsTerminal { tcflush(STDIN_FILENO, TCIFLUSH) }
        if Terminal.stderrIsTerminal { Terminal.note("chatting with \(nickname); Ctrl-D ends") }
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        // readLine blocks, so it gets its own thread rather than one of the few cooperative ones.
        let reader = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        return lines
    }
}
