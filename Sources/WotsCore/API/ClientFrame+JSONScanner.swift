extension ClientFrame {
    /// A `send` frame read with `JSONScanner`, the one client frame that comes once per message; nil for any other
    /// frame or input outside the plain subset, which the relay then decodes with Foundation's decoder. Whenever it
    /// is not nil it is the frame Foundation's decoder reads.
    public static func scanSend(_ bytes: [UInt8]) -> ClientFrame? {
        var scanner = JSONScanner(bytes)
        var type: String?
        var ref: String?
        var envelope: Envelope?
        var ephemeral: Bool?
        let isPlain = scanner.object { key, scanner in
            switch key {
            case "type" where type == nil:
                type = scanner.string()
                return type != nil
            case "ref" where ref == nil:
                ref = scanner.string()
                return ref != nil
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
        guard isPlain, scanner.isAtEnd(), type == "send", let envelope,
            (ref?.utf8.count ?? 0) <= Self.maximumReferenceSize
        else { return nil }
        return ClientFrame(ephemeral == true ? .sendEphemeral(envelope) : .send(envelope), ref: ref)
    }
}
