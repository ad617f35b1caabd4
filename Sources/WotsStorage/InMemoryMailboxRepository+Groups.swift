public import Foundation
import Synchronization
public import WotsCore

/// A group message body held once in memory, with the recipients whose slots still wait.
struct StoredGroupBody {
    var envelope: GroupEnvelope
    var receivedAt: Date
    var sequences: [Int64]
    var waiting: Set<Token>
}

/// One recipient's slot of a group message.
struct StoredGroupSlot {
    var sequence: Int64
    var key: MessageKey
    var wrappedKey: [UInt8]
}

extension InMemoryMailboxRepository: GroupMailboxRepository {
    public func appendGroup(
        _ envelope: GroupEnvelope,
        slots: [GroupSlot],
        receivedAt: Date,
        mailboxCapacity: Int,
        mailboxQuota: Int
    ) async throws -> GroupMailboxReceipt {
        try self.state.withLock { state in
            let key = envelope.header.messageKey
            if let held = state.groupBodies[key] {
                guard held.envelope == envelope else {
                    throw WotsError(
                        .messageIDConflict,
                        "message id \(key.id.lowercasedString) was used by this sender for a different group message"
                    )
                }
                return GroupMailboxReceipt(receivedAt: held.receivedAt, sequences: held.sequences, isNew: false)
            }
            let charged = envelope.chargedBytesPerSlot
            for slot in slots {
                let mailbox = state.mailboxes[slot.recipient]
                let groupSlots = state.groupSlots[slot.recipient]?.count ?? 0
                guard (mailbox?.messages.count ?? 0) + groupSlots < mailboxCapacity else {
                    throw WotsError(
                        .mailboxFull,
                        "mailbox of \(slot.recipient) holds \(mailboxCapacity) messages already; nothing was stored"
                    )
                }
                guard charged <= mailboxQuota - (mailbox?.bytes ?? 0) - state.groupBytes(of: slot.recipient) else {
                    throw WotsError.quotaExceeded(recipient: slot.recipient, envelopeSize: charged, quota: mailboxQuota)
                }
            }
            let exact = receivedAt.timeIntervalSince1970 * 1000
            // Whole milliseconds, as the database backends store them; a whole-millisecond time must not move.
            let milliseconds = abs(exact - exact.rounded()) < 0.001 ? exact.rounded() : exact.rounded(.down)
            let receivedAt = Date(timeIntervalSince1970: milliseconds / 1000)
            var sequences: [Int64] = []
            for slot in slots {
                var mailbox = state.mailboxes[slot.recipient, default: Mailbox()]
                sequences.append(mailbox.nextSequence)
                state.groupSlots[slot.recipient, default: []].append(
                    StoredGroupSlot(sequence: mailbox.nextSequence, key: key, wrappedKey: slot.wrappedKey)
                )
                mailbox.nextSequence += 1
                state.mailboxes[slot.recipient] = mailbox
            }
            state.groupBodies[key] = StoredGroupBody(
                envelope: envelope,
                receivedAt: receivedAt,
                sequences: sequences,
                waiting: Set(slots.map(\.recipient))
            )
            return GroupMailboxReceipt(receivedAt: receivedAt, sequences: sequences)
        }
    }

    public func groupMessages(for recipient: Token, after sequence: Int64, limit: Int, at now: Date) async throws
        -> [GroupMailboxMessage]
    {
        guard limit > 0 else { return [] }
        return self.state.withLock { state in
            let bodies = state.groupBodies
            var messages: [GroupMailboxMessage] = []
            for slot in state.groupSlots[recipient] ?? [] where slot.sequence > sequence && messages.count < limit {
                guard let body = bodies[slot.key], !body.envelope.hasExpired(at: now) else { continue }
                messages.append(
                    GroupMailboxMessage(
                        sequence: slot.sequence,
                        receivedAt: body.receivedAt,
                        envelope: body.envelope,
                        slot: slot.wrappedKey
                    )
                )
            }
            return messages
        }
    }

    @discardableResult
    public func acknowledgeGroup(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws
        -> [MessageKey]
    {
        self.state.withLock { state in
            var deleted: [MessageKey] = []
            for key in keys where state.removeGroupSlot(key, of: recipient) {
                deleted.append(key)
            }
            return deleted
        }
    }

    @discardableResult
    public func deleteExpiredGroupMessages(at now: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return self.state.withLock { state in
            let doomed = state.groupBodies.filter { $0.value.envelope.hasExpired(at: now) }.prefix(limit)
            for (key, body) in doomed {
                for recipient in body.waiting { _ = state.removeGroupSlot(key, of: recipient) }
            }
            return doomed.count
        }
    }

    public func groupStatistics() async throws -> GroupStorageStatistics {
        self.state.withLock { state in
            GroupStorageStatistics(
                bodies: state.groupBodies.count,
                slots: state.groupSlots.values.map(\.count).reduce(0, +),
                bodyBytes: state.groupBodies.values.map(\.envelope.serializedSize).reduce(0, +)
            )
        }
    }
}

extension InMemoryMailboxRepository.State {
    /// The bytes the recipient's waiting group slots charge against its quota.
    func groupBytes(of recipient: Token) -> Int {
        (self.groupSlots[recipient] ?? []).reduce(0) { total, slot in
            total + (self.groupBodies[slot.key]?.envelope.chargedBytesPerSlot ?? 0)
        }
    }

    /// Removes one slot, and the body with its last slot. - Returns: whether the slot was there.
    mutating func removeGroupSlot(_ key: MessageKey, of recipient: Token) -> Bool {
        guard let index = self.groupSlots[recipient]?.firstIndex(where: { $0.key == key }) else { return false }
        self.groupSlots[recipient]?.remove(at: index)
        self.groupBodies[key]?.waiting.remove(recipient)
        if self.groupBodies[key]?.waiting.isEmpty == true { self.groupBodies[key] = nil }
        return true
    }

    mutating func removeGroupSlots(of recipient: Token) {
        for slot in self.groupSlots[recipient] ?? [] { _ = self.removeGroupSlot(slot.key, of: recipient) }
    }
}
