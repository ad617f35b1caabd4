public import Foundation
import Synchronization
public import WotsCore

/// A `MailboxRepository` held in memory, for tests and throwaway relays. Nothing survives the process.
public final class InMemoryMailboxRepository: MailboxRepository {
    /// What is kept of an acknowledged message: enough to answer a retried send with its first receipt.
    struct Acknowledged {
        var recipient: Token
        var receipt: MailboxReceipt
        var tag: [UInt8]
        var acknowledgedAt: Date
    }

    struct Mailbox {
        var nextSequence: Int64 = 1
        /// In sequence order, because sequences only grow.
        var messages: [MailboxMessage] = []
        /// Serialized bytes of `messages`.
        var bytes = 0
    }

    struct State {
        var mailboxes: [Token: Mailbox] = [:]
        /// Group message bodies, stored once, and each recipient's slots in sequence order (`+Groups`).
        var groupBodies: [MessageKey: StoredGroupBody] = [:]
        var groupSlots: [Token: [StoredGroupSlot]] = [:]
        /// Group messages whose last slot was acknowledged, remembered until forgotten (`+Groups`).
        var acknowledgedGroups: [MessageKey: AcknowledgedGroupBody] = [:]
        /// Where each waiting message is, by the key that makes appends idempotent.
        var sequences: [MessageKey: Int64] = [:]
        var acknowledged: [MessageKey: Acknowledged] = [:]
        var notices: [MessageKey: ExpiryNotice] = [:]

        mutating func append(
            _ envelope: Envelope,
            receivedAt: Date,
            capacity: Int,
            quota: Int
        ) -> Result<MailboxReceipt, WotsError> {
            let header = envelope.header
            let key = header.messageKey
            let conflict = WotsError(
                .messageIDConflict,
                "message id \(header.messageID.lowercasedString) was used by this sender for a different envelope"
            )
            if let sequence = self.sequences[key] {
                let stored = self.mailboxes[header.recipient]?.messages.first { $0.sequence == sequence }
                guard let stored, stored.envelope == envelope else { return .failure(conflict) }
                return .success(MailboxReceipt(sequence: stored.sequence, receivedAt: stored.receivedAt, isNew: false))
            }
            if let acknowledged = self.acknowledged[key] {
                guard acknowledged.tag == envelope.acknowledgementTag else { return .failure(conflict) }
                var receipt = acknowledged.receipt
                receipt.isNew = false
                return .success(receipt)
            }
            var mailbox = self.mailboxes[header.recipient, default: Mailbox()]
            guard mailbox.messages.count < capacity else {
                return .failure(
                    WotsError(.mailboxFull, "mailbox of \(header.recipient) holds \(capacity) messages already")
                )
            }
            let size = envelope.serializedSize
            guard size <= quota - mailbox.bytes else {
                return .failure(.quotaExceeded(recipient: header.recipient, envelopeSize: size, quota: quota))
            }
            let message = MailboxMessage(
                sequence: mailbox.nextSequence,
                receivedAt: receivedAt.truncatedToMilliseconds,
                envelope: envelope
            )
            mailbox.nextSequence += 1
            mailbox.messages.append(message)
            mailbox.bytes += size
            self.mailboxes[header.recipient] = mailbox
            self.sequences[key] = message.sequence
            return .success(MailboxReceipt(sequence: message.sequence, receivedAt: message.receivedAt))
        }

        /// Removes the recipient's messages that match, forgetting their idempotence keys.
        /// - Returns: the removed messages.
        mutating func remove(from recipient: Token, where shouldRemove: (MailboxMessage) -> Bool) -> [MailboxMessage] {
            guard var mailbox = self.mailboxes[recipient] else { return [] }
            var removed: [MailboxMessage] = []
            mailbox.messages.removeAll { message in
                guard shouldRemove(message) else { return false }
                self.sequences.removeValue(forKey: message.envelope.header.messageKey)
                mailbox.bytes -= message.envelope.serializedSize
                removed.append(message)
                return true
            }
            self.mailboxes[recipient] = mailbox
            return removed
        }
    }

    let state = Mutex(State())

    /// Creates empty mailboxes.
    public init() {}

    public func append(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> MailboxReceipt {
        try self.appendNow(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
    }

    public func enqueueAppendNow(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int,
        announce: @escaping Announcement
    ) throws -> PendingWrite<MailboxReceipt>? {
        let receipt = try self.appendNow(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
        return receipt.settledAnnouncingIfNew(envelope, to: announce)
    }

    public func enqueueAcknowledgeNow(_ keys: [MessageKey], for recipient: Token, at now: Date) throws
        -> PendingWrite<[MessageKey]>?
    {
        .settled(.success(self.acknowledgeNow(keys, for: recipient, at: now)))
    }

    private func appendNow(
        _ envelope: Envelope,
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) throws -> MailboxReceipt {
        try self.state.withLock {
            $0.append(envelope, receivedAt: receivedAt, capacity: mailboxCapacity, quota: mailboxQuota)
        }.get()
    }

    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        self.state.withLock { state in
            envelopes.map { state.append($0, receivedAt: receivedAt, capacity: mailboxCapacity, quota: mailboxQuota) }
        }
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [MailboxMessage]
    {
        guard limit > 0 else { return [] }
        return self.state.withLock { state in
            Array(
                (state.mailboxes[recipient]?.messages ?? []).lazy
                    .filter { $0.sequence > sequence && !$0.envelope.hasExpired(at: now) }
                    .prefix(limit)
            )
        }
    }

    @discardableResult
    public func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey] {
        self.acknowledgeNow(keys, for: recipient, at: now)
    }

    private func acknowledgeNow(_ keys: [MessageKey], for recipient: Token, at now: Date) -> [MessageKey] {
        let wanted = Set(keys)
        let removed = self.state.withLock { state in
            let removed = state.remove(from: recipient) { wanted.contains($0.envelope.header.messageKey) }
            for message in removed {
                state.acknowledged[message.envelope.header.messageKey] = Acknowledged(
                    recipient: recipient,
                    receipt: MailboxReceipt(sequence: message.sequence, receivedAt: message.receivedAt),
                    tag: message.envelope.acknowledgementTag,
                    acknowledgedAt: now
                )
            }
            return Set(removed.map(\.envelope.header.messageKey))
        }
        var reported = Set<MessageKey>()
        return keys.filter { removed.contains($0) && reported.insert($0).inserted }
    }

    public func depth(of recipient: Token) async throws -> Int {
        self.state.withLock { $0.mailboxes[recipient]?.messages.count ?? 0 }
    }

    public func statistics() async throws -> MailboxStatistics {
        self.state.withLock { state in
            let depths = state.mailboxes.values.map(\.messages.count)
            return MailboxStatistics(
                waiting: depths.reduce(0, +),
                deepest: depths.max() ?? 0,
                expiryNotices: state.notices.count
            )
        }
    }

    /// Every waiting message: how many, their envelopes' bytes and the oldest arrival.
    func queued() -> (messages: Int, bytes: Int, oldest: Date?) {
        self.state.withLock { state in
            let messages = state.mailboxes.values.flatMap(\.messages)
            return (
                messages.count, messages.map(\.envelope.serializedSize).reduce(0, +), messages.map(\.receivedAt).min()
            )
        }
    }

    public func deleteMailbox(of recipient: Token) async throws {
        self.state.withLock { state in
            _ = state.remove(from: recipient) { _ in true }
            state.removeGroupSlots(of: recipient)
            state.acknowledged = state.acknowledged.filter { $0.value.recipient != recipient }
            state.notices = state.notices.filter { $0.key.sender != recipient }
        }
    }

    @discardableResult
    public func expire(receivedBefore cutoff: Date, at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return self.state.withLock { state in
            let oldest = state.mailboxes.values.flatMap(\.messages).filter { $0.receivedAt < cutoff }
                .sorted { $0.receivedAt < $1.receivedAt }.prefix(limit)
            let doomed = Set(oldest.map(\.envelope.header.messageKey))
            for recipient in Set(oldest.map(\.envelope.header.recipient)) {
                for message in state.remove(from: recipient, where: { doomed.contains($0.envelope.header.messageKey) })
                {
                    let header = message.envelope.header
                    state.notices[header.messageKey] = ExpiryNotice(
                        sender: header.sender,
                        messageID: header.messageID,
                        recipient: recipient,
                        receivedAt: message.receivedAt,
                        expiredAt: now.truncatedToMilliseconds
                    )
                }
            }
            return oldest.count
        }
    }

    @discardableResult
    public func deleteExpired(at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return self.state.withLock { state in
            let doomed = state.mailboxes.values.flatMap(\.messages).filter { $0.envelope.hasExpired(at: now) }
                .sorted { ($0.envelope.mailboxExpiryMilliseconds ?? 0) < ($1.envelope.mailboxExpiryMilliseconds ?? 0) }
                .prefix(limit)
            let keys = Set(doomed.map(\.envelope.header.messageKey))
            for recipient in Set(doomed.map(\.envelope.header.recipient)) {
                _ = state.remove(from: recipient) { keys.contains($0.envelope.header.messageKey) }
            }
            return doomed.count
        }
    }

    public func expiryNotices(for sender: Token, limit: Int) async throws -> [ExpiryNotice] {
        guard limit > 0 else { return [] }
        return self.state.withLock { state in
            let notices = state.notices.values.filter { $0.sender == sender }.sorted {
                ($0.expiredAt, $0.messageID.lowercasedString) < ($1.expiredAt, $1.messageID.lowercasedString)
            }
            return Array(notices.prefix(limit))
        }
    }

    @discardableResult
    public func clearExpiryNotices(_ messageIDs: [UUID], for sender: Token) async throws -> [UUID] {
        self.state.withLock { state in
            messageIDs.filter { state.notices.removeValue(forKey: MessageKey(sender: sender, id: $0)) != nil }
        }
    }

    @discardableResult
    public func forgetExpiryNotices(before cutoff: Date) async throws -> Int {
        self.state.withLock { state in
            let before = state.notices.count
            state.notices = state.notices.filter { $0.value.expiredAt >= cutoff }
            return before - state.notices.count
        }
    }

    @discardableResult
    public func forgetAcknowledgements(before cutoff: Date) async throws -> Int {
        self.state.withLock { state in
            let before = state.acknowledged.count
            state.acknowledged = state.acknowledged.filter { $0.value.acknowledgedAt >= cutoff }
            return before - state.acknowledged.count
        }
    }
}

extension Date {
    /// This time without its sub-millisecond part, as the database backends store it.
    fileprivate var truncatedToMilliseconds: Date {
        let exact = self.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        // A time that already holds whole milliseconds comes back a hair off; it must not move by one.
        return Date(timeIntervalSince1970: (abs(exact - nearest) < 0.001 ? nearest : exact.rounded(.down)) / 1000)
    }
}
