public import Foundation

/// A frame a client sends on `GET /v1/stream`: a JSON object with a `type`, an optional `ref` the relay echoes in
/// its reply, and the fields of that type. Every client frame gets exactly one reply (schema/stream.md).
public struct ClientFrame: Sendable, Hashable {
    /// Longest `ref` accepted, in UTF-8 bytes.
    public static let maximumReferenceSize = 64

    public enum Body: Sendable, Hashable {
        /// First frame when the upgrade carried no `Authorization` header; answered by `ready`.
        case auth(session: String)
        /// Deletes these messages from the caller's mailbox; answered by `acked`.
        case ack([MessageKey])
        /// Stores an envelope like `POST /v1/messages`; answered by `accepted` or `error`.
        case send(Envelope)
        /// A `send` with `"ephemeral": true`: checked like a send, never stored, handed to the recipient's sockets
        /// open now; answered by an `accepted` with `ephemeral: true` and how many sockets got it.
        case sendEphemeral(Envelope)
        /// `send_group` with `"ephemeral": true` (group typing): a group envelope's body and one slot per recipient,
        /// checked like `POST /v1/group-messages`, never stored, handed to each recipient's sockets opened with
        /// `?groups=true`; answered by an `accepted` with `ephemeral: true`. Stored group sends go over HTTP.
        case sendGroupEphemeral(GroupSendRequest)
        /// Turns `directory` notifications on or off; answered by `subscribed`.
        case subscribe(directory: Bool)
    }

    /// Chosen by the client, echoed in the reply so replies can be matched to requests.
    public var ref: String?
    public var body: Body

    public init(_ body: Body, ref: String? = nil) {
        self.body = body
        self.ref = ref
    }

    /// The wire name of the frame's type.
    public var type: String {
        switch self.body {
        case .auth: "auth"
        case .ack: "ack"
        case .send, .sendEphemeral: "send"
        case .sendGroupEphemeral: "send_group"
        case .subscribe: "subscribe"
        }
    }
}

extension ClientFrame: Codable {
    enum CodingKeys: String, CodingKey {
        case type, ref, session, messages, envelope, directory, ephemeral, body, slots
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        self.ref = try container.decodeReference(forKey: .ref)
        switch type {
        case "auth": self.body = .auth(session: try container.decode(String.self, forKey: .session))
        case "ack": self.body = .ack(try container.decode([MessageKey].self, forKey: .messages))
        case "send":
            let envelope = try container.decode(Envelope.self, forKey: .envelope)
            let ephemeral = try container.decodeIfPresent(Bool.self, forKey: .ephemeral) ?? false
            self.body = ephemeral ? .sendEphemeral(envelope) : .send(envelope)
        case "send_group":
            guard try container.decodeIfPresent(Bool.self, forKey: .ephemeral) == true else {
                throw WotsError(
                    .invalidFrame,
                    "send_group on the stream is ephemeral only (\"ephemeral\": true); POST /v1/group-messages stores"
                )
            }
            self.body = .sendGroupEphemeral(try Self.decodeGroupSend(container))
        case "subscribe": self.body = .subscribe(directory: try container.decode(Bool.self, forKey: .directory))
        default:
            throw WotsError(
                .invalidFrame,
                "unknown frame type \"\(type.prefix(32))\" (auth, ack, send, send_group, subscribe)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.type, forKey: .type)
        try container.encodeIfPresent(self.ref, forKey: .ref)
        switch self.body {
        case .auth(let session): try container.encode(session, forKey: .session)
        case .ack(let keys): try container.encode(keys, forKey: .messages)
        case .send(let envelope): try container.encode(envelope, forKey: .envelope)
        case .sendEphemeral(let envelope):
            try container.encode(envelope, forKey: .envelope)
            try container.encode(true, forKey: .ephemeral)
        case .sendGroupEphemeral(let request):
            try container.encode(true, forKey: .ephemeral)
            try container.encodeBase64(request.body.serialized, forKey: .body)
            try container.encodeBase64(request.slots.flatMap(\.wrappedKey), forKey: .slots)
        case .subscribe(let directory): try container.encode(directory, forKey: .directory)
        }
    }

    /// A `send_group` frame's body and slots: `slots` is one standard base64 string of every recipient's 256-byte
    /// wrapped key, in the header's recipient order (the recipients are in the signed header already, and the
    /// compact form keeps a 256-member frame under the relay's 128 KiB frame limit).
    private static func decodeGroupSend(_ container: KeyedDecodingContainer<CodingKeys>) throws -> GroupSendRequest {
        let body = try GroupEnvelope(serialized: try container.decodeBase64(forKey: .body))
        let keys = try container.decodeBase64(forKey: .slots)
        let recipients = body.header.recipients
        guard keys.count == recipients.count * GroupEnvelope.slotSize else {
            throw WotsError(
                .malformedEnvelope,
                "slots hold \(keys.count) bytes, not \(GroupEnvelope.slotSize) for each of \(recipients.count) recipients"
            )
        }
        let slots = recipients.enumerated().map { index, recipient in
            let start = index * GroupEnvelope.slotSize
            return GroupSlot(
                recipient: recipient.token,
                wrappedKey: Array(keys[start..<start + GroupEnvelope.slotSize])
            )
        }
        return GroupSendRequest(body: body, slots: slots)
    }
}

/// What can be read of a client frame that failed to decode, so its refusal still names the request.
public struct ClientFrameHead: Sendable, Hashable, Decodable {
    public var ref: String?
    /// The message id of a `send` frame's envelope, when it is a UUID.
    public var messageID: UUID?

    private struct EnvelopeID: Decodable {
        var id: String?
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClientFrame.CodingKeys.self)
        self.ref = try? container.decodeReference(forKey: .ref)
        let envelope = try? container.decodeIfPresent(EnvelopeID.self, forKey: .envelope)
        self.messageID = envelope?.id.flatMap(UUID.init(uuidString:))
    }
}

extension KeyedDecodingContainer {
    /// An optional `ref`: a string of at most `ClientFrame.maximumReferenceSize` UTF-8 bytes.
    fileprivate func decodeReference(forKey key: Key) throws -> String? {
        guard let ref = try self.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard ref.utf8.count <= ClientFrame.maximumReferenceSize else {
            throw WotsError(
                .invalidFrame,
                "ref is \(ref.utf8.count) bytes (at most \(ClientFrame.maximumReferenceSize))"
            )
        }
        return ref
    }
}
