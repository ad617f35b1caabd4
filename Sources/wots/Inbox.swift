import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Inbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch, verify, decrypt and show new messages, then delete them at the relay.",
        discussion: """
            Each message is checked against its sender's signing key before it is decrypted; one that fails is \
            reported with its sender and the reason, and never shown as valid. Messages from a changed key stay \
            in the mailbox until `wots trust NICK`. --json prints one JSON array of {"id", "seq", "from", \
            "fromToken", "senderFingerprint", "sentAt", "receivedAt", "text", "valid", "error", "warnings"}; \
            warnings lists "dated_in_future" and "sent_before_restore" when they apply (SECURITY.md, "Replay \
            protection"). Then come messages you sent that expired at the relay undelivered ("your message ID to \
            bob expired undelivered after 30 days"); in the JSON array as {"kind": "expired", "id", "to", \
            "toToken", "receivedAt", "expiredAt"} after the messages (a message has no "kind"). Each is reported \
            once, unless --keep. Each message is kept in the encrypted history (`wots history`) and its sender's \
            client is told it was delivered; printed as text, also that you read it, unless --no-read-receipts or \
            `wots settings --read-receipts off` (--json sends no read receipts). Receipts from your contacts are not \
            shown as messages: they move your sent messages to delivered or read (✓✓ lines after the messages). An \
            attachment is downloaded, checked (size, digest, every chunk) and saved in \
            --download-dir under a name no file has; its JSON adds "attachment" {"name", "size", "mediaType"} \
            and "savedTo" (the path), and "text" is its caption. A corrupt attachment is an attachment_corrupt \
            message and nothing is saved. Group messages come first, as "[NAME] sender: text", membership \
            changes as "[NAME] alice added dave", and refused group updates or messages as "[NAME] ✗ …"; in the \
            JSON array as {"kind": "group_message"|"group_change"|"group_refused", "group", "groupName", "id", \
            "from", "fromToken", "sentAt", "expiresAt", "type", "text", "line", "warnings"} (an attachment adds \
            "attachment" {"name", "size", "mediaType"} and "savedTo"). Group slots are deleted at the relay once \
            kept here; --keep shows the group events again next time. Each group message's sender alone is told \
            it was delivered and (printed as text, unless read receipts are off) read; a member whose key is not \
            the one the group recorded is named in a warning beside its messages, with the `wots verify` and \
            `wots group rekey` steps.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Flag(name: .long, help: "Print the messages as a JSON array.")
    var json = false

    @Flag(name: .long, help: "Leave the messages in the mailbox (and expiry notices at the relay).")
    var keep = false

    @Flag(name: .customLong("no-read-receipts"), help: "Do not tell senders which messages you read.")
    var noReadReceipts = false
    @OptionGroup var downloads: DownloadOptions

    func run() async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        var collected: [InboxEntry] = []
        let json = self.json
        let display = ConversationDisplay(store: messenger.store)
        var events: [ConversationEvent] = []
        // Groups first: both share the record of messages seen, which the 1:1 pass then reads fresh.
        let groupEvents = try await messenger.groupInbox(
            keep: self.keep,
            readReceipts: !self.noReadReceipts && !json,
            downloads: self.downloads.saver(acknowledging: !self.keep),
            progress: TransferReport("downloading").callback
        )
        if json {
            collected += groupEvents.map(InboxEntry.group)
        } else {
            for event in groupEvents { Terminal.out(Terminal.describe(event)) }
        }
        let summary = try await messenger.inbox(
            keep: self.keep,
            // Printed for a person to read: `read` receipts (unless turned off); --json is for scripts.
            readReceipts: !self.noReadReceipts && !json,
            downloads: self.downloads.saver(acknowledging: !self.keep),
            progress: TransferReport("downloading").callback,
            show: { message in
                if json {
                    collected.append(.message(message))
                } else {
                    Terminal.out(Terminal.describe(message))
                }
            },
            event: { events.append($0) },
            expired: { expired in
                if json {
                    collected.append(.expired(expired))
                } else {
                    Terminal.out(Terminal.describe(expired))
                }
            }
        )
        if !json { for event in events { await display.show(event) } }
        if json {
            try Terminal.json(collected)
        } else if summary.shown == 0, groupEvents.isEmpty {
            Terminal.out("no new messages")
        }
        if summary.invalid > 0 {
            Terminal.note(
                "wots: \(summary.invalid) of \(summary.shown) messages failed verification and were not shown"
            )
        }
    }
}

/// One element of `wots inbox --json`: a received message, or a notice of a sent one that expired.
enum InboxEntry: Encodable {
    case message(ReceivedMessage)
    case expired(ExpiredMessage)
    case group(GroupEvent)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .message(let message): try message.encode(to: encoder)
        case .expired(let expired): try expired.encode(to: encoder)
        case .group(let event): try event.encode(to: encoder)
        }
    }
}
