import Foundation
import PostgresNIO
import WotsCore
import WotsStorage

/// One envelope to append, with the receive time, capacity and byte quota its caller gave.
struct MailboxAppend: Sendable {
    var envelope: Envelope
    /// Already rounded as it will be stored (`PostgresTime.stored`).
    var receivedAt: Date
    var mailboxCapacity: Int
    var mailboxQuota: Int

    init(envelope: Envelope, receivedAt: Date, mailboxCapacity: Int, mailboxQuota: Int) {
        self.envelope = envelope
        self.receivedAt = PostgresTime.stored(receivedAt)
        self.mailboxCapacity = mailboxCapacity
        self.mailboxQuota = mailboxQuota
    }
}

extension MailboxAppend {
    /// The statement that appends `appends` in order (`wots_append_group`, migration 0013): one row per append.
    static func query(_ appends: [MailboxAppend]) -> PostgresQuery {
        let recipients = appends.map { ByteBuffer(bytes: $0.envelope.header.recipient.bytes) }
        let senders = appends.map { ByteBuffer(bytes: $0.envelope.header.sender.bytes) }
        let messageIDs = appends.map(\.envelope.header.messageID)
        let envelopes = appends.map { ByteBuffer(bytes: $0.envelope.serialized) }
        let receivedAts = appends.map(\.receivedAt)
        let capacities = appends.map { Int64($0.mailboxCapacity) }
        let quotas = appends.map { Int64($0.mailboxQuota) }
        let expiries = appends.map { $0.envelope.mailboxExpiryMilliseconds ?? 0 }
        return """
            SELECT ordinality, outcome, sequence, received_at
            FROM wots_append_group(
                \(recipients), \(senders), \(messageIDs), \(envelopes), \(receivedAts), \(capacities), \(quotas),
                \(expiries)
            )
            """
    }

    /// The outcomes of `appends`, in order, from the rows `query(appends)` returned, and a notification for each
    /// newly stored message.
    static func outcomes(
        of appends: [MailboxAppend],
        from rows: [PostgresRow],
        nodeID: String
    ) throws -> (outcomes: [Result<MailboxReceipt, WotsError>], notifications: [MailNotification]) {
        var outcomes: [Result<MailboxReceipt, WotsError>?] = Array(repeating: nil, count: appends.count)
        var notifications: [MailNotification] = []
        for row in rows {
            let (ordinality, code, sequence, receivedAt) = try row.decode((Int, String, Int64?, Date?).self)
            let index = ordinality - 1
            guard outcomes.indices.contains(index), outcomes[index] == nil else {
                throw WotsError(.storageCorrupted, "a group append answered for envelope \(ordinality) unexpectedly")
            }
            let outcome = try Self.outcome(code, sequence: sequence, receivedAt: receivedAt, of: appends[index])
            outcomes[index] = outcome
            if code == "stored", case .success(let receipt) = outcome {
                notifications.append(
                    MailNotification(
                        nodeID: nodeID,
                        recipient: appends[index].envelope.header.recipient,
                        sequence: receipt.sequence
                    )
                )
            }
        }
        let answered = try outcomes.map { outcome in
            guard let outcome else {
                throw WotsError(.storageCorrupted, "a group append of \(appends.count) envelopes left one unanswered")
            }
            return outcome
        }
        return (answered, notifications)
    }

    private static func outcome(
        _ code: String,
        sequence: Int64?,
        receivedAt: Date?,
        of append: MailboxAppend
    ) throws -> Result<MailboxReceipt, WotsError> {
        let header = append.envelope.header
        switch (code, sequence, receivedAt) {
        case ("stored", let sequence?, let receivedAt?):
            return .success(MailboxReceipt(sequence: sequence, receivedAt: PostgresTime.loaded(receivedAt)))
        case ("duplicate", let sequence?, let receivedAt?):
            return .success(
                MailboxReceipt(sequence: sequence, receivedAt: PostgresTime.loaded(receivedAt), isNew: false)
            )
        case ("conflict", _, _):
            return .failure(
                WotsError(
                    .messageIDConflict,
                    "message id \(header.messageID.lowercasedString) was used by this sender for a different envelope"
                )
            )
        case ("full", _, _):
            return .failure(
                WotsError(
                    .mailboxFull,
                    "the mailbox of \(header.recipient) is full (at most \(append.mailboxCapacity) messages)"
                )
            )
        case ("over_quota", _, _):
            return .failure(
                .quotaExceeded(
                    recipient: header.recipient,
                    envelopeSize: append.envelope.serializedSize,
                    quota: append.mailboxQuota
                )
            )
        default:
            throw WotsError(.storageCorrupted, "a group append answered \"\(code)\" without a sequence or time")
        }
    }
}
