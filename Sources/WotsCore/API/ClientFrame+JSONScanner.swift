import Foundation

extension ClientFrame {
    /// A `send` frame read with `JSONScanner`, the one client frame that comes once per message; nil for any other
    /// frame or input outside the plain subset, which the relay then decodes with Foundation's decoder. Whenever it
    /// is not nil it is the frame Foundation's decoder reads.
    public static func scanSend(_ bytes: [UInt8]) -> ClientFrame? {
        var envelope: Envelope?
        var ephemeral: Bool?
        let head = Self.scanPlain(bytes) { key, scanner in
            switch key {
            case "envelope" where envelope == nil:
                envelope = Envelope.scan(&scanner)
                return envelope != nil
            case "ephemeral" where ephemeral == nil:
                ephemeral = scanner.bool()
                return ephemeral != nil
            default:
                return false
            }
        }
        guard let head, head.type == "send", let envelope else { return nil }
        return ClientFrame(ephemeral == true ? .sendEphemeral(envelope) : .send(envelope), ref: head.ref)
    }

    /// An `ack` frame read with `JSONScanner`, the client frame that comes once per delivered message; nil for any
    /// other frame or input outside the plain subset. Whenever it is not nil it is the frame Foundation's decoder reads.
    public static func scanAck(_ bytes: [UInt8]) -> ClientFrame? {
        var keys: [MessageKey]?
        let head = Self.scanPlain(bytes) { key, scanner in
            guard key == "messages", keys == nil else { return false }
            keys = MessageKey.scanList(&scanner)
            return keys != nil
        }
        guard let head, head.type == "ack", let keys else { return nil }
        return ClientFrame(.ack(keys), ref: head.ref)
    }

    /// The whole input as one plain JSON object with `type` and `ref` at most once each (a `ref` of at most
    /// `maximumReferenceSize` bytes) and every other key read by `member`; nil otherwise.
    private static func scanPlain(
        _ bytes: [UInt8],
        _ member: (String, inout JSONScanner) -> Bool
    ) -> (type: String?, ref: String?)? {
        var scanner = JSONScanner(bytes)
        var type: String?
        var ref: String?
        let isPlain = scanner.object { key, scanner in
            switch key {
            case "type" where type == nil:
                type = scanner.string()
                return type != nil
            case "ref" where ref == nil:
                ref = scanner.string()
                return ref != nil
            default:
                return member(key, &scanner)
            }
        }
        guard isPlain, scanner.isAtEnd(), (ref?.utf8.count ?? 0) <= Self.maximumReferenceSize else { return nil }
        return (type, ref)
    }
}

extension MessageKey {
    /// `[{"sender": TOKEN, "id": UUID}, …]` in the plain subset, each key once and no other; nil otherwise.
    fileprivate static func scanList(_ scanner: inout JSONScanner) -> [MessageKey]? {
        var keys: [MessageKey] = []
        let isPlain = scanner.array { scanner in
            var sender: Token?
            var id: UUID?
            let isKey = scanner.object { name, scanner in
                switch name {
                case "sender" where sender == nil:
                    sender = scanner.string().flatMap { try? Token($0) }
                    return sender != nil
                case "id" where id == nil:
                    id = scanner.string().flatMap { UUID(text: $0) }
                    return id != nil
                default:
                    return false
                }
            }
            guard isKey, let sender, let id else { return false }
            keys.append(MessageKey(sender: sender, id: id))
            return true
        }
        return isPlain ? keys : nil
    }
}
