import Foundation
import WotsCore
import WotsStorage

/// One item of a recipient's mailbox as a stream delivers it: a 1:1 message or the recipient's slot of a group
/// message. Both take their sequence from the one mailbox counter, so one ordered stream carries both.
enum StreamMail: Sendable, Hashable {
    case direct(MailboxMessage)
    case group(GroupMailboxMessage)

    var sequence: Int64 {
        switch self {
        case .direct(let message): message.sequence
        case .group(let message): message.sequence
        }
    }

    /// What the client acknowledges it by.
    var key: MessageKey {
        switch self {
        case .direct(let message): message.envelope.header.messageKey
        case .group(let message): message.envelope.header.messageKey
        }
    }

    func hasExpired(at now: Date) -> Bool {
        switch self {
        case .direct(let message): message.envelope.hasExpired(at: now)
        case .group(let message): message.envelope.hasExpired(at: now)
        }
    }

    /// The frame that carries it.
    var frame: RelayFrame {
        switch self {
        case .direct(let message):
            .message(
                DeliveredMessage(seq: message.sequence, receivedAt: message.receivedAt, envelope: message.envelope)
            )
        case .group(let message):
            .groupMessage(
                DeliveredGroupMessage(
                    seq: message.sequence,
                    receivedAt: message.receivedAt,
                    body: message.envelope,
                    slot: message.slot
                )
            )
        }
    }

    /// The first `limit` items of two mailbox reads, each in sequence order and each asked for `limit` items: every
    /// item up to the last one returned is there, since a read that stopped short of it would have returned it.
    static func merged(_ direct: [MailboxMessage], _ group: [GroupMailboxMessage], limit: Int) -> [StreamMail] {
        let all = direct.map(StreamMail.direct) + group.map(StreamMail.group)
        return Array(all.sorted { $0.sequence < $1.sequence }.prefix(limit))
    }
}
