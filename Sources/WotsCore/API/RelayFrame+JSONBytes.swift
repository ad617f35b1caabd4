import Foundation

extension RelayFrame {
    /// The frame's JSON, byte for byte what `WireCoding.makeEncoder()` writes: the frames sent once per message
    /// (`message`, `accepted`, `acked`) are written by hand, the rest by Foundation's encoder, as is any frame whose
    /// client-chosen `ref` JSON would have to escape.
    public func jsonBytes() throws -> [UInt8] {
        switch self {
        case .message(let message):
            var json = JSONBytes(capacity: Self.capacity(for: message.envelope))
            json.raw("{\"envelope\":")
            message.envelope.appendJSON(to: &json)
            json.raw(",\"receivedAt\":")
            json.date(message.receivedAt)
            json.raw(",\"seq\":")
            json.integer(message.seq)
            json.raw(",\"type\":\"message\"}")
            return json.bytes
        case .ephemeralMessage(let receivedAt, let envelope):
            var json = JSONBytes(capacity: Self.capacity(for: envelope))
            json.raw("{\"envelope\":")
            envelope.appendJSON(to: &json)
            json.raw(",\"ephemeral\":true,\"receivedAt\":")
            json.date(receivedAt)
            json.raw(",\"type\":\"message\"}")
            return json.bytes
        case .accepted(let ref, let id, let seq, let receivedAt) where ref.map(JSONBytes.isPlain) ?? true:
            var json = JSONBytes(capacity: 160)
            json.raw("{\"id\":")
            json.plainString(id.lowercasedString)
            json.raw(",\"receivedAt\":")
            json.date(receivedAt)
            Self.appendReference(ref, to: &json)
            json.raw(",\"seq\":")
            json.integer(seq)
            json.raw(",\"type\":\"accepted\"}")
            return json.bytes
        case .acked(let ref, let messages) where ref.map(JSONBytes.isPlain) ?? true:
            var json = JSONBytes(capacity: 96 + 80 * messages.count)
            json.raw("{\"acknowledged\":")
            json.integer(messages.count)
            json.raw(",\"messages\":[")
            for (index, key) in messages.enumerated() {
                json.raw(index == 0 ? "{\"id\":" : ",{\"id\":")
                json.plainString(key.id.lowercasedString)
                json.raw(",\"sender\":")
                json.token(key.sender)
                json.raw("}")
            }
            json.raw("]")
            Self.appendReference(ref, to: &json)
            json.raw(",\"type\":\"acked\"}")
            return json.bytes
        default:
            return Array(try WireCoding.makeEncoder().encode(self))
        }
    }

    private static func appendReference(_ ref: String?, to json: inout JSONBytes) {
        guard let ref else { return }
        json.raw(",\"ref\":")
        json.plainString(ref)
    }

    private static func capacity(for envelope: Envelope) -> Int { envelope.serializedSize * 4 / 3 + 400 }
}
