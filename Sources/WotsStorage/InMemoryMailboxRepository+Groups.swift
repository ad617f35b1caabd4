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

/// What is kept of a group message whose last slot was acknowledged: enough to answer a retried send.
struct AcknowledgedGroupBody {
    var receivedAt: Date
    var signature: [UInt8]
    var acknowledgedAt: Date
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
                let sequences = zip(held.sequences, held.envelope.header.recipients).map { sequence, recipient in
                    held.waiting.contains(recipient.token) ? sequence : 0
                }
                return GroupMailboxReceipt(receivedAt: held.receivedAt, sequences: sequences, isNew: false)
            }
            if let remembered = state.acknowledgedGroups[key] {
                guard remembered.signature == envelope.signature else {
                    throw WotsError(
                        .messageIDConflict,
                        "message id \(key.id.lowercasedString) was used by this sender for a different group message"
                    )
                }
                let sequences = [Int64](repeating: 0, count: slots.count)
                return GroupMailboxReceipt(receivedAt: remembered.receivedAt, sequences: sequences, isNew: false)
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
            for key in keys where state.removeGroupSlot(key, of: recipient, acknowledgedAt: now) {
                deleted.append(key)
            }
            return deleted
        }
    }

    @discardableResult
    public func deleteExpiredGroupMessages(at now: Date, limit: Int) async throws -> Int {
        self.state.withLock { state in
            state.deleteGroupBodies(limit: limit, where: { $0.envelope.hasExpired(at: now) }) {
                ($0.envelope.mailboxExpiryMilliseconds ?? 0) < ($1.envelope.mailboxExpiryMilliseconds ?? 0)
            }
        }
    }

    @discardableResult
    public func expireGroupMessages(receivedBefore cutoff: Date, limit: Int) async throws -> Int {
        self.state.withLock { state in
            state.deleteGroupBodies(limit: limit, where: { $0.receivedAt < cutoff }) { $0.receivedAt < $1.receivedAt }
        }
    }

    @discardableResult
    public func forgetAcknowledgedGroupMessages(before cutoff: Date) async throws -> Int {
        self.state.withLock { state in
            let before = state.acknowledgedGroups.count
            state.acknowledgedGroups = state.acknowledgedGroups.filter { $0.value.acknowledgedAt >= cutoff }
            return before - state.acknowledgedGroups.count
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

    /// Deletes up to `limit` bodies that satisfy `doomed`, first in `order`, with their slots.
    /// - Returns: how many were deleted.
    mutating func deleteGroupBodies(
        limit: Int,
        where doomed: (StoredGroupBody) -> Bool,
        order: (StoredGroupBody, StoredGroupBody) -> Bool
    ) -> Int {
        guard limit > 0 else { return 0 }
        let chosen = self.groupBodies.filter { doomed($0.value) }.sorted { order($0.value, $1.value) }.prefix(limit)
        for (key, body) in chosen {
            for recipient in body.waiting { _ = self.removeGroupSlot(key, of: recipient) }
        }
        return chosen.count
    }

    /// Removes one slot, and the body with its last slot; a body whose last slot was acknowledged (`acknowledgedAt`
    /// given) is remembered. - Returns: whether the slot was there.
    mutating func removeGroupSlot(_ key: MessageKey, of recipient: Token, acknowledgedAt: Date? = nil) -> Bool {
        guard let index = self.groupSlots[recipient]?.firstIndex(where: { $0.key == key }) else { return false }
        self.groupSlots[recipient]?.remove(at: index)
        self.groupBodies[key]?.waiting.remove(recipient)
        if let body = self.groupBodies[key], body.waiting.isEmpty {
            self.groupBodies[key] = nil
            if let acknowledgedAt {
                self.acknowledgedGroups[key] = AcknowledgedGroupBody(
                    receivedAt: body.receivedAt,
                    signature: body.envelope.signature,
                    acknowledgedAt: acknowledgedAt
                )
            }
        }
        return true
    }

    mutating func removeGroupSlots(of recipient: Token) {
        for slot in self.groupSlots[recipient] ?? [] { _ = self.removeGroupSlot(slot.key, of: recipient) }
    }
}
