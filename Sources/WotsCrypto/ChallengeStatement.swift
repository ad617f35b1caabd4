import WotsCore

/// The bytes a client signs to answer one of a relay's single-use challenges:
/// `label || u16 len || relay id || u16 len || nonce || subject`. The label names the purpose (logging in,
/// restoring, deleting), so an answer for one never passes for another; the relay id makes it useless at another
/// relay; the nonce is used once.
enum ChallengeStatement {
    /// - Throws: `WotsError.malformed` when the relay id or nonce is empty or longer than 65,535 bytes.
    static func bytes(label: [UInt8], relayID: [UInt8], nonce: [UInt8], subject: [UInt8]) throws -> [UInt8] {
        guard (1...Int(UInt16.max)).contains(relayID.count), (1...Int(UInt16.max)).contains(nonce.count) else {
            throw WotsError(.malformed, "relay id and nonce must be 1–65,535 bytes each")
        }
        var writer = ByteWriter(capacity: label.count + 4 + relayID.count + nonce.count + subject.count)
        writer.write(label)
        writer.write(uint16Prefixed: relayID)
        writer.write(uint16Prefixed: nonce)
        writer.write(subject)
        return writer.bytes
    }
}
