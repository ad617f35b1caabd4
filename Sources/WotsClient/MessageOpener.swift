import Foundation
import WotsCore
import WotsCrypto

/// Finds each sender's keys (pinned contact first, else the directory by token, proven by the relay's log when an
/// auditor is given, pinned on first use), verifies and decrypts, and drops messages already shown.
struct MessageOpener {
    let relay: RelayClient
    let token: Token
    let identity: IdentityKeys
    var contacts: ContactBook
    var seen: SeenMessages
    /// When this home restored the account, if it did (`Profile.restoredAt`).
    var restoredAt: Date?
    /// Checks an unpinned sender's entry against the relay's transparency log; nil trusts the lookup as it is.
    var auditor: LogAuditor?
    private var directory: [Token: DirectoryEntry] = [:]
    /// Log heads peers gossiped that were already found consistent with this client's view.
    private var consistentHeads: Set<LogHead> = []
    private(set) var contactsChanged = false

    init(
        relay: RelayClient,
        token: Token,
        identity: IdentityKeys,
        contacts: ContactBook,
        seen: SeenMessages,
        restoredAt: Date? = nil,
        auditor: LogAuditor? = nil
    ) {
        self.restoredAt = restoredAt
        self.auditor = auditor
        self.relay = relay
        self.token = token
        self.identity = identity
        self.contacts = contacts
        self.seen = seen
    }

    /// Opens one delivered envelope; nil when its id was shown before.
    /// - Throws: only when the relay cannot be asked about the sender (the message stays for next time).
    mutating func open(_ delivered: DeliveredMessage) async throws -> ReceivedMessage? {
        let header = delivered.envelope.header
        if self.seen.contains(header.messageKey) { return nil }
        var message = ReceivedMessage(
            id: header.messageID,
            seq: delivered.seq,
            from: nil,
            fromToken: header.sender,
            senderFingerprint: header.senderFingerprint,
            sentAt: header.sentAt,
            receivedAt: delivered.receivedAt,
            text: nil,
            problem: nil,
            acknowledge: true
        )
        func fail(_ code: ErrorCode, _ reason: String, acknowledge: Bool = true) -> ReceivedMessage {
            message.problem = ReceivedMessage.Problem(code: code, message: reason)
            message.acknowledge = acknowledge
            return message
        }

        let senderKeys: PublicKeys
        if let pinned = self.contacts.contact(token: header.sender), pinned.fingerprint == header.senderFingerprint {
            message.from = pinned.nickname
            senderKeys = pinned.publicKeys
        } else {
            let entry: DirectoryEntry
            do {
                entry = try await self.lookUp(header.sender)
            } catch let error as WotsError where error.code == .unknownToken {
                let known = self.contacts.contact(token: header.sender)
                message.from = known?.nickname
                return fail(
                    .unknownSender,
                    "the sender's token \(header.sender) is not in the directory (account deleted?)"
                )
            }
            message.from = entry.nickname
            do {
                try Messenger.checkConsistent(entry, relay: self.relay.baseURL)
            } catch let error as WotsError {
                return fail(.unknownSender, error.reason)
            }
            guard entry.fingerprint == header.senderFingerprint else {
                return fail(
                    .senderKeyMismatch,
                    "signed with key \(header.senderFingerprint.grouped), but \(entry.nickname)'s key is "
                        + "\(entry.fingerprint.grouped)"
                )
            }
            switch self.contacts.verdict(for: entry) {
            case .unknown:
                self.contacts.pin(entry)
                self.contactsChanged = true
            case .pinned:
                break
            case .changed(let pinned):
                return fail(
                    .keyChanged,
                    ContactBook.keyChangedError(entry: entry, pinned: pinned).reason + " to read this message",
                    acknowledge: false
                )
            }
            senderKeys = entry.publicKeys
        }

        let opened: OpenedMessage
        do {
            opened = try delivered.envelope.open(as: self.token, identity: self.identity, senderKeys: senderKeys)
        } catch let error as WotsError {
            return fail(error.code, error.reason)
        } catch {
            return fail(.malformed, "\(error)")
        }
        let body: MessageBody
        do {
            body = try opened.body()
        } catch let error as WotsError {
            return fail(error.code, error.reason)
        }
        try await self.checkGossip(body.log, from: message.from?.description ?? header.sender.description)
        message.body = body
        message.expiresAt = header.expiresAt
        switch body.content {
        case .text(let text): message.text = text
        case .attachment(let reference):
            message.attachment = reference
            message.text = reference.caption
        default: break
        }
        message.warnings = ReceivedMessage.warnings(sentAt: header.sentAt, now: Date(), restoredAt: self.restoredAt)
        return message
    }

    /// - Throws: `log_forked` when the sender was shown another log than this client; the message stays unacknowledged.
    private mutating func checkGossip(_ head: LogHead?, from sender: String) async throws {
        guard let head, let auditor = self.auditor, !self.consistentHeads.contains(head) else { return }
        try await auditor.checkGossip(head, from: sender)
        self.consistentHeads.insert(head)
    }

    /// Records that a message was shown, so a redelivery is dropped.
    mutating func markSeen(_ key: MessageKey) { self.seen.insert(key) }

    private mutating func lookUp(_ token: Token) async throws -> DirectoryEntry {
        if let cached = self.directory[token] { return cached }
        let entry: DirectoryEntry
        if let auditor = self.auditor {
            entry = try await auditor.verify(try await self.relay.lookup(token: token)).entry
        } else {
            entry = try await self.relay.entry(token: token)
        }
        self.directory[token] = entry
        return entry
    }
}
