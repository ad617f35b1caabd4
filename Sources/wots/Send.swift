import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send an end-to-end encrypted message.",
        discussion: """
            The text comes from the arguments, or from stdin when there are none. The recipient's keys are pinned \
            on first use; a changed key is refused until `wots trust NICK`. A send that failed midway can be \
            retried with the printed --id: the relay stores the message once. --json prints {"id", "to", \
            "recipientToken", "seq", "receivedAt", "pinnedNow", "fingerprint"}. --disappear 30s|5m|1h|1d|off first \
            sets the conversation's disappearing timer (both sides apply it; later messages vanish from both \
            machines and the relay when it runs out). --wait-delivered then waits on the live stream until bob's \
            client confirms it stored the message (exit 0), or --timeout passes: exit status 4, "sent but not \
            confirmed delivered". --file PATH encrypts the file \
            (AES-256-GCM in 64 KiB chunks, a fresh key), uploads it to the relay (resuming after a cut) and sends \
            a message carrying its key and digest; --caption adds text. --disappear and --wait-delivered work with \
            --file as with text: the attachment message carries the timer, and the wait ends when bob's client \
            confirms it stored the message (exit status 4 when not within --timeout). --group NAME sends to \
            every other member of a group instead (see `wots group`), sealed once; --json then prints {"id", \
            "group", "groupName", "recipients", "receivedAt"}. With --group, --file uploads the file once for every \
            member, --disappear sets the group's timer for every member (any member may), and --wait-delivered \
            waits until every member's client confirmed it stored the message ("delivered to 3/3 members"; exit \
            status 4 with "2/3" when not all did within --timeout; --json adds "delivered" {"members", \
            "delivered", "read"}).
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(name: .long, help: ArgumentHelp("The recipient's nickname.", valueName: "NICK"))
    var to: String?

    @Option(name: .long, help: ArgumentHelp("Send to a group instead (its name or id prefix).", valueName: "NAME"))
    var group: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Message id (to retry a send safely); default a new time-ordered (version 7) id.",
            valueName: "UUID"
        )
    )
    var id: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Set the conversation's disappearing timer first.", valueName: "30s|5m|1h|1d|off")
    )
    var disappear: String?

    @Flag(name: .customLong("wait-delivered"), help: "Wait until the recipient's client confirms it stored it.")
    var waitDelivered = false

    @Option(name: .long, help: ArgumentHelp("How long --wait-delivered waits. Default 30s.", valueName: "DURATION"))
    var timeout: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Send this file as an encrypted attachment instead of text (at most the relay's --max-blob-size).",
            valueName: "PATH"
        )
    )
    var file: String?

    @Option(name: .long, help: ArgumentHelp("A caption sent with --file.", valueName: "TEXT"))
    var caption: String?

    @Flag(name: .long, help: "Print the receipt as JSON.")
    var json = false

    @Argument(help: "The message; read from stdin when absent.")
    var text: [String] = []

    func validate() throws {
        switch (self.to, self.group) {
        case (let to?, nil): _ = try parseNickname(to)
        case (nil, _?): break
        default: throw ValidationError("give exactly one of --to NICK and --group NAME")
        }
        if let id, UUID(uuidString: id) == nil { throw ValidationError("--id \"\(id)\" is not a UUID") }
        _ = try self.disappearSeconds()
        _ = try self.waitTimeout()
        if self.timeout != nil, !self.waitDelivered { throw ValidationError("--timeout goes with --wait-delivered") }
        if let file {
            guard self.text.isEmpty else { throw ValidationError("--file sends a file; give the text as --caption") }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ValidationError("--file \(file) is not a readable file")
            }
        } else if self.caption != nil {
            throw ValidationError("--caption goes with --file")
        }
        if !self.text.isEmpty {
            do {
                try Messenger.validateMessage(self.text.joined(separator: " "))
            } catch let error as WotsError {
                throw ValidationError(error.reason)
            }
        }
    }

    func run() async throws {
        if let group { return try await self.sendToGroup(group) }
        if let file { return try await self.sendFile(file) }
        let message = try self.messageText()
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let sent = try await messenger.send(
            message,
            to: try parseNickname(self.to ?? ""),
            messageID: self.messageID(),
            disappearAfter: try self.disappearSeconds()
        )
        if sent.pinnedNow {
            Terminal.note(
                "pinned \(sent.to)'s key \(sent.fingerprint.grouped) (first use); compare `wots verify \(sent.to)` with them"
            )
        }
        if self.json {
            try Terminal.json(sent)
        } else {
            Terminal.out("sent to \(sent.to) (id \(sent.id.uuidString.lowercased()))")
        }
        try await self.waitIfAsked(for: sent, messenger: messenger)
    }

    /// With --wait-delivered, waits for the recipient's client to confirm `sent`; exit 4 when it did not in time.
    private func waitIfAsked(for sent: SentMessage, messenger: Messenger) async throws {
        guard self.waitDelivered else { return }
        let timeout = try self.waitTimeout()
        guard let status = try await messenger.waitForDelivery(of: sent.id, timeout: timeout) else {
            Terminal.note(
                "wots: message \(sent.id.lowercasedString) was sent but not confirmed delivered within "
                    + Terminal.span(timeout)
            )
            throw ExitCode(Wots.ExitStatus.unconfirmed)
        }
        if !self.json { Terminal.out(status == .read ? "read by \(sent.to)" : "delivered to \(sent.to)") }
    }

    /// The message id to send under: `--id` (checked in `validate`), else a new one.
    func messageID() -> UUID { self.id.flatMap(UUID.init(uuidString:)) ?? Envelope.newMessageID() }

    func disappearSeconds() throws -> UInt32? {
        guard let disappear else { return nil }
        do {
            return try Messenger.disappearingTimer(disappear)
        } catch let error as WotsError {
            throw ValidationError("--disappear: \(error.reason)")
        }
    }

    func waitTimeout() throws -> Duration {
        guard let timeout else { return .seconds(30) }
        do {
            let seconds = try Messenger.disappearingTimer(timeout)
            guard seconds > 0 else { throw WotsError(.invalidInput, "zero") }
            return .seconds(seconds)
        } catch {
            throw ValidationError("--timeout \"\(timeout)\" is not a whole number of s, m or h (as 30s)")
        }
    }

    private func sendFile(_ path: String) async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let sent = try await messenger.sendFile(
            at: path,
            caption: self.caption,
            to: try parseNickname(self.to ?? ""),
            messageID: self.messageID(),
            disappearAfter: try self.disappearSeconds(),
            progress: TransferReport("uploading").callback
        )
        if self.json {
            try Terminal.json(sent)
        } else {
            Terminal.out(
                "sent \(URL(fileURLWithPath: path).lastPathComponent) to \(sent.to) (id \(sent.id.lowercasedString))"
            )
        }
        try await self.waitIfAsked(for: sent, messenger: messenger)
    }

    /// The text from the arguments, else from stdin (a final newline dropped).
    func messageText() throws -> String {
        guard self.text.isEmpty else { return self.text.joined(separator: " ") }
        if Terminal.stdinIsTerminal { Terminal.note("type the message, then Ctrl-D:") }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let read = String(data: data, encoding: .utf8) else {
            throw WotsError(.invalidInput, "the message on stdin is not UTF-8 text")
        }
        return read.hasSuffix("\n") ? String(read.dropLast()) : read
    }
}
