public import Foundation

/// Frames a client sends on `GET /v1/stream`, JSON objects with a `type` discriminator.
public enum ClientFrame: Sendable, Hashable {
    /// First frame when the upgrade carried no `Authorization` header.
    case auth(session: String)
    case ack(ids: [UUID])
    case send(envelope: Envelope)
    /// Ask for (or stop) `directory` notifications.
    case subscribeDirectory(Bool)
}

/// Frames the relay sends on `GET /v1/stream`.
public enum RelayFrame: Sendable, Hashable {
    /// Authentication succeeded; queued messages follow, then live ones.
    case ready(token: Token)
    case message(DeliveredMessage)
    /// A `send` frame's envelope was stored.
    case accepted(id: UUID, seq: Int64, receivedAt: Date)
    /// A frame was refused; `id` names the message when the frame carried one.
    case error(id: UUID?, code: ErrorCode, message: String)
    /// Someone registered, rotated keys or left (only after `subscribeDirectory(true)`).
    case directory(change: String, nickname: Nickname)
}

extension ClientFrame: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, session, ids, envelope, directory
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "auth": self = .auth(session: try container.decode(String.self, forKey: .session))
        case "ack": self = .ack(ids: try container.decode([UUID].self, forKey: .ids))
        case "send": self = .send(envelope: try container.decode(Envelope.self, forKey: .envelope))
        case "subscribe": self = .subscribeDirectory(try container.decode(Bool.self, forKey: .directory))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "unknown frame type \"\(type.prefix(32))\" (auth, ack, send, subscribe)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .auth(let session):
            try container.encode("auth", forKey: .type)
            try container.encode(session, forKey: .session)
        case .ack(let ids):
            try container.encode("ack", forKey: .type)
            try container.encode(ids, forKey: .ids)
        case .send(let envelope):
            try container.encode("send", forKey: .type)
            try container.encode(envelope, forKey: .envelope)
        case .subscribeDirectory(let on):
            try container.encode("subscribe", forKey: .type)
            try container.encode(on, forKey: .directory)
        }
    }
}

extension RelayFrame: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, token, seq, receivedAt, envelope, id, code, message, change, nickname
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "ready":
            self = .ready(token: try container.decode(Token.self, forKey: .token))
        case "message":
            self = .message(
                DeliveredMessage(
                    seq: try container.decode(Int64.self, forKey: .seq),
                    receivedAt: try container.decode(Date.self, forKey: .receivedAt),
                    envelope: try container.decode(Envelope.self, forKey: .envelope)
                )
            )
        case "accepted":
            self = .accepted(
                id: try container.decode(UUID.self, forKey: .id),
                seq: try container.decode(Int64.self, forKey: .seq),
                receivedAt: try container.decode(Date.self, forKey: .receivedAt)
            )
        case "error":
            self = .error(
                id: try container.decodeIfPresent(UUID.self, forKey: .id),
                code: try container.decode(ErrorCode.self, forKey: .code),
                message: try container.decode(String.self, forKey: .message)
            )
        case "directory":
            self = .directory(
                change: try container.decode(String.self, forKey: .change),
                nickname: try container.decode(Nickname.self, forKey: .nickname)
            )
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "unknown frame type \"\(other.prefix(32))\""
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .ready(let token):
            try container.encode("ready", forKey: .type)
            try container.encode(token, forKey: .token)
        case .message(let message):
            try container.encode("message", forKey: .type)
            try container.encode(message.seq, forKey: .seq)
            try container.encode(message.receivedAt, forKey: .receivedAt)
            try container.encode(message.envelope, forKey: .envelope)
        case .accepted(let id, let seq, let receivedAt):
            try container.encode("accepted", forKey: .type)
            try container.encode(id, forKey: .id)
            try container.encode(seq, forKey: .seq)
            try container.encode(receivedAt, forKey: .receivedAt)
        case .error(let id, let code, let message):
            try container.encode("error", forKey: .type)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(code, forKey: .code)
            try container.encode(message, forKey: .message)
        case .directory(let change, let nickname):
            try container.encode("directory", forKey: .type)
            try container.encode(change, forKey: .change)
            try container.encode(nickname, forKey: .nickname)
        }
    }
}
