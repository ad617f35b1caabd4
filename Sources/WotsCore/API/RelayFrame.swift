public import Foundation

/// A frame the relay sends on `GET /v1/stream`. Replies to a client frame carry its `ref`; `ready`, `message` and
/// `directory` frames are the relay's own (schema/stream.md).
public enum RelayFrame: Sendable, Hashable {
    /// Authentication succeeded (the reply to `auth`, or the first frame after an upgrade with a bearer header);
    /// queued messages follow, then live ones.
    case ready(ref: String?, token: Token)
    /// A message from the caller's mailbox; the client acknowledges it with `ack` once it has it safely.
    case message(DeliveredMessage)
    /// The caller's slot of a group message with its body, in mailbox order with `message` frames (only on a stream
    /// opened with `?groups=true`); acknowledged with `ack` by (sender, id) like a message.
    case groupMessage(DeliveredGroupMessage)
    /// The reply to `send`: the envelope is stored (or was already, for a retried send).
    case accepted(ref: String?, id: UUID, seq: Int64, receivedAt: Date)
    /// An ephemeral message (a `send` with `ephemeral: true`, such as typing) passed on as it arrived: never stored,
    /// no `seq`, never acknowledged.
    case ephemeralMessage(receivedAt: Date, envelope: Envelope)
    /// The caller's slot of an ephemeral group message (a `send_group` with `ephemeral: true`, such as group typing),
    /// passed on as it arrived to a socket opened with `?groups=true`: never stored, no `seq`, never acknowledged.
    case ephemeralGroupMessage(receivedAt: Date, body: GroupEnvelope, slot: [UInt8])
    /// The reply to an ephemeral `send`: nothing was stored; `delivered` sockets of the recipient were handed it.
    case ephemeralAccepted(ref: String?, id: UUID, delivered: Int)
    /// The reply to `ack`: the messages that were deleted now (messages not in the mailbox are left out).
    case acked(ref: String?, messages: [MessageKey])
    /// The reply to `subscribe`: whether `directory` notifications are on now.
    case subscribed(ref: String?, directory: Bool)
    /// A frame was refused; `ref` and `id` (a `send` frame's message id) name it where it had them.
    case error(ref: String?, id: UUID?, code: ErrorCode, message: String)
    /// Someone registered, rotated keys or left (only after `subscribe` with `directory: true`).
    case directory(change: String, nickname: Nickname)
}

extension RelayFrame: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, ref, token, seq, receivedAt, envelope, id, code, message, change, nickname, messages
        case acknowledged, directory, ephemeral, delivered, body, slot
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let ref = try container.decodeIfPresent(String.self, forKey: .ref)
        switch try container.decode(String.self, forKey: .type) {
        case "ready":
            self = .ready(ref: ref, token: try container.decode(Token.self, forKey: .token))
        case "message" where try container.decodeIfPresent(Bool.self, forKey: .ephemeral) == true:
            self = .ephemeralMessage(
                receivedAt: try container.decode(Date.self, forKey: .receivedAt),
                envelope: try container.decode(Envelope.self, forKey: .envelope)
            )
        case "message":
            self = .message(
                DeliveredMessage(
                    seq: try container.decode(Int64.self, forKey: .seq),
                    receivedAt: try container.decode(Date.self, forKey: .receivedAt),
                    envelope: try container.decode(Envelope.self, forKey: .envelope)
                )
            )
        case "group_message" where try container.decodeIfPresent(Bool.self, forKey: .ephemeral) == true:
            self = .ephemeralGroupMessage(
                receivedAt: try container.decode(Date.self, forKey: .receivedAt),
                body: try GroupEnvelope(serialized: try container.decodeBase64(forKey: .body)),
                slot: try container.decodeBase64(forKey: .slot)
            )
        case "group_message":
            self = .groupMessage(try DeliveredGroupMessage(from: decoder))
        case "accepted" where try container.decodeIfPresent(Bool.self, forKey: .ephemeral) == true:
            self = .ephemeralAccepted(
                ref: ref,
                id: try container.decodeMessageID(forKey: .id),
                delivered: try container.decode(Int.self, forKey: .delivered)
            )
        case "accepted":
            self = .accepted(
                ref: ref,
                id: try container.decodeMessageID(forKey: .id),
                seq: try container.decode(Int64.self, forKey: .seq),
                receivedAt: try container.decode(Date.self, forKey: .receivedAt)
            )
        case "acked":
            self = .acked(ref: ref, messages: try container.decode([MessageKey].self, forKey: .messages))
        case "subscribed":
            self = .subscribed(ref: ref, directory: try container.decode(Bool.self, forKey: .directory))
        case "error":
            self = .error(
                ref: ref,
                id: try container.decodeIfPresent(String.self, forKey: .id).flatMap(UUID.init(uuidString:)),
                code: try container.decode(ErrorCode.self, forKey: .code),
                message: try container.decode(String.self, forKey: .message)
            )
        case "directory":
            self = .directory(
                change: try container.decode(String.self, forKey: .change),
                nickname: try container.decode(Nickname.self, forKey: .nickname)
            )
        case let other:
            throw WotsError(.invalidResponse, "unknown relay frame type \"\(other.prefix(32))\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .ready(let ref, let token):
            try container.encode("ready", forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encode(token, forKey: .token)
        case .message(let message):
            try container.encode("message", forKey: .type)
            try container.encode(message.seq, forKey: .seq)
            try container.encode(message.receivedAt, forKey: .receivedAt)
            try container.encode(message.envelope, forKey: .envelope)
        case .groupMessage(let message):
            try container.encode("group_message", forKey: .type)
            try message.encode(to: encoder)
        case .accepted(let ref, let id, let seq, let receivedAt):
            try container.encode("accepted", forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encode(id.lowercasedString, forKey: .id)
            try container.encode(seq, forKey: .seq)
            try container.encode(receivedAt, forKey: .receivedAt)
        case .ephemeralMessage(let receivedAt, let envelope):
            try container.encode("message", forKey: .type)
            try container.encode(true, forKey: .ephemeral)
            try container.encode(receivedAt, forKey: .receivedAt)
            try container.encode(envelope, forKey: .envelope)
        case .ephemeralGroupMessage(let receivedAt, let body, let slot):
            try container.encode("group_message", forKey: .type)
            try container.encode(true, forKey: .ephemeral)
            try container.encode(receivedAt, forKey: .receivedAt)
            try container.encodeBase64(body.serialized, forKey: .body)
            try container.encodeBase64(slot, forKey: .slot)
        case .ephemeralAccepted(let ref, let id, let delivered):
            try container.encode("accepted", forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encode(id.lowercasedString, forKey: .id)
            try container.encode(true, forKey: .ephemeral)
            try container.encode(delivered, forKey: .delivered)
        case .acked(let ref, let messages):
            try container.encode("acked", forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encode(messages.count, forKey: .acknowledged)
            try container.encode(messages, forKey: .messages)
        case .subscribed(let ref, let directory):
            try container.encode("subscribed", forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encode(directory, forKey: .directory)
        case .error(let ref, let id, let code, let message):
            try container.encode("error", forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
            try container.encodeIfPresent(id?.lowercasedString, forKey: .id)
            try container.encode(code, forKey: .code)
            try container.encode(message, forKey: .message)
        case .directory(let change, let nickname):
            try container.encode("directory", forKey: .type)
            try container.encode(change, forKey: .change)
            try container.encode(nickname, forKey: .nickname)
        }
    }
}
