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
        guard let senderKeys = try await self.senderKeys(of: &message) else { return message }
        let opened: OpenedMessage
        do {
            opened = try delivered.envelope.open(as: self.token, identity: self.identity, senderKeys: senderKeys)
        } catch let error as WotsError {
            return message.failing(error.code, error.reason)
        } catch {
            return message.failing(.malformed, "\(error)")
        }
        let body: MessageBody
        do {
            body = try opened.body()
        } catch let error as WotsError {
            return message.failing(error.code, error.reason)
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

    /// The sender's keys: the pinned contact's when the fingerprint matches, else the directory's (proven by the log
    /// when an auditor is given), pinned on first use. Shared by 1:1 and group messages.
    /// - Returns: nil with `message.problem` set when the keys cannot be used (a changed key keeps the message).
    /// - Throws: only when the relay cannot be asked about the sender.
    mutating func senderKeys(of message: inout ReceivedMessage) async throws -> PublicKeys? {
        let sender = message.fromToken
        let fingerprint = message.senderFingerprint
        if sender == self.token, fingerprint == self.identity.fingerprint {
            return self.identity.publicKeys  // a group update this account sent comes back to it
        }
        if let pinned = self.contacts.contact(token: sender), pinned.fingerprint == fingerprint {
            message.from = pinned.nickname
            return pinned.publicKeys
        }
        let entry: DirectoryEntry
        do {
            entry = try await self.lookUp(sender)
        } catch let error as WotsError where error.code == .unknownToken {
            message.from = self.contacts.contact(token: sender)?.nickname
            message = message.failing(
                .unknownSender,
                "the sender's token \(sender) is not in the directory (account deleted?)"
            )
            return nil
        }
        message.from = entry.nickname
        do {
            try Messenger.checkConsistent(entry, relay: self.relay.baseURL)
        } catch let error as WotsError {
            message = message.failing(.unknownSender, error.reason)
            return nil
        }
        guard entry.fingerprint == fingerprint else {
            message = message.failing(
                .senderKeyMismatch,
                "signed with key \(fingerprint.grouped), but \(entry.nickname)'s key is \(entry.fingerprint.grouped)"
            )
            return nil
        }
        switch self.contacts.verdict(for: entry) {
        case .unknown:
            self.contacts.pin(entry)
            self.contactsChanged = true
        case .pinned:
            break
        case .changed(let pinned):
            message = message.failing(
                .keyChanged,
                ContactBook.keyChangedError(entry: entry, pinned: pinned).reason + " to read this message",
                acknowledge: false
            )
            return nil
        }
        return entry.publicKeys
    }

    /// - Throws: `log_forked` when the sender was shown another log than this client; the message stays unacknowledged.
    private mutating func checkGossip(_ head: LogHead?, from sender: String) async throws {
        guard let head, let auditor = self.auditor, !self.consistentHeads.contains(head) else { return }
        try await auditor.checkGossip(head, from: sender)
        self.consistentHeads.insert(head)
    }

    /// Records that a message was shown, so a redelivery is dropped.
    mutating func markSeen(_ key: MessageKey) { self.seen.insert(key) }

    mutating func lookUp(_ token: Token) async throws -> DirectoryEntry {
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
