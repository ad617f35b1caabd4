public import Foundation
import Synchronization
public import WotsCore

/// A `MailboxRepository` held in memory, for tests and throwaway relays. Nothing survives the process.
public final class InMemoryMailboxRepository: MailboxRepository {
    private struct MessageKey: Hashable {
        var sender: Token
        var messageID: UUID
    }

    private struct Mailbox {
        var nextSequence: Int64 = 1
        /// In sequence order, because sequences only grow.
        var messages: [MailboxMessage] = []
    }

    private struct State {
        var mailboxes: [Token: Mailbox] = [:]
        /// Where each waiting message is, by the key that makes appends idempotent.
        var sequences: [MessageKey: Int64] = [:]

        mutating func append(
            _ envelope: Envelope,
            receivedAt: Date,
            capacity: Int
        ) -> Result<MailboxReceipt, WotsError> {
            let header = envelope.header
            let key = MessageKey(sender: header.sender, messageID: header.messageID)
            if let sequence = self.sequences[key] {
                let stored = self.mailboxes[header.recipient]?.messages.first { $0.sequence == sequence }
                if let stored, stored.envelope == envelope {
                    return .success(MailboxReceipt(sequence: stored.sequence, receivedAt: stored.receivedAt))
                }
                return .failure(
                    WotsError(
                        .messageIDConflict,
                        "message id \(header.messageID) was used by this sender for a different envelope"
                    )
                )
            }
            var mailbox = self.mailboxes[header.recipient, default: Mailbox()]
            guard mailbox.messages.count < capacity else {
                return .failure(
                    WotsError(.mailboxFull, "mailbox of \(header.recipient) holds \(capacity) messages already")
                )
            }
            let message = MailboxMessage(
                sequence: mailbox.nextSequence,
                receivedAt: receivedAt.truncatedToMilliseconds,
                envelope: envelope
            )
            mailbox.nextSequence += 1
            mailbox.messages.append(message)
            self.mailboxes[header.recipient] = mailbox
            self.sequences[key] = message.sequence
            return .success(MailboxReceipt(sequence: message.sequence, receivedAt: message.receivedAt))
        }

        /// Removes the recipient's messages that match, forgetting their idempotence keys.
        mutating func remove(from recipient: Token, where shouldRemove: (MailboxMessage) -> Bool) -> Int {
            guard var mailbox = self.mailboxes[recipient] else { return 0 }
            let before = mailbox.messages.count
            mailbox.messages.removeAll { message in
                guard shouldRemove(message) else { return false }
                let header = message.envelope.header
                self.sequences.removeValue(forKey: MessageKey(sender: header.sender, messageID: header.messageID))
                return true
            }
            self.mailboxes[recipient] = mailbox
            return before - mailbox.messages.count
        }
    }

    private let state = Mutex(State())

    /// Creates empty mailboxes.
    public init() {}

    public func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int) async throws -> MailboxReceipt {
        try self.state.withLock { $0.append(envelope, receivedAt: receivedAt, capacity: mailboxCapacity) }.get()
    }

    public func append(
        batch envelopes: [Envelope],
        receivedAt: Date,
        mailboxCapacity: Int
    ) async throws -> [Result<MailboxReceipt, WotsError>] {
        self.state.withLock { state in
            envelopes.map { state.append($0, receivedAt: receivedAt, capacity: mailboxCapacity) }
        }
    }

    public func messages(for recipient: Token, after sequence: Int64, limit: Int) async throws -> [MailboxMessage] {
        guard limit > 0 else { return [] }
        return self.state.withLock { state in
            Array((state.mailboxes[recipient]?.messages ?? []).lazy.filter { $0.sequence > sequence }.prefix(limit))
        }
    }

    @discardableResult
    public func acknowledge(_ messageIDs: [UUID], for recipient: Token) async throws -> Int {
        let ids = Set(messageIDs)
        return self.state.withLock { state in
            state.remove(from: recipient) { ids.contains($0.envelope.header.messageID) }
        }
    }

    public func depth(of recipient: Token) async throws -> Int {
        self.state.withLock { $0.mailboxes[recipient]?.messages.count ?? 0 }
    }

    public func statistics() async throws -> MailboxStatistics {
        self.state.withLock { state in
            let depths = state.mailboxes.values.map(\.messages.count)
            return MailboxStatistics(waiting: depths.reduce(0, +), deepest: depths.max() ?? 0)
        }
    }

    public func deleteMailbox(of recipient: Token) async throws {
        _ = self.state.withLock { state in state.remove(from: recipient) { _ in true } }
    }

    @discardableResult
    public func sweep(receivedBefore cutoff: Date) async throws -> Int {
        self.state.withLock { state in
            let recipients = Array(state.mailboxes.keys)
            return recipients.reduce(0) { removed, recipient in
                removed + state.remove(from: recipient) { $0.receivedAt < cutoff }
            }
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
