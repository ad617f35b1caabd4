import Foundation
import NIOCore
import WotsCore
import WotsCrypto

/// An envelope sealed before the clock starts, in both the forms it is sent in.
struct SealedMessage: Sendable {
    /// The message id in lowercase, as the relay writes it in its frames.
    let id: String
    /// `Envelope` JSON, the body of `POST /v1/messages`.
    let body: ByteBuffer
    /// `{"envelope":…,"type":"send"}` as a whole masked WebSocket frame, made before the clock starts.
    let frame: ByteBuffer
}

extension SealedMessage {
    /// Seals, for each sender, one list of messages per entry of `counts`, to the recipient of the same index, on
    /// as many tasks as there are cores.
    static func sealAll(
        senders: [BenchUser],
        recipients: [BenchUser],
        counts: [Int],
        plaintextSize: Int
    ) async throws -> [[[SealedMessage]]] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var out: [[[SealedMessage]]] = Array(repeating: [], count: senders.count)
        try await withThrowingTaskGroup(of: [(Int, [[SealedMessage]])].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let encoder = WireCoding.makeEncoder()
                    return try stride(from: worker, to: senders.count, by: workers).map { index in
                        let lists = try counts.map { count in
                            try (0..<count).map { _ in
                                try Self.seal(
                                    SecureRandom.bytes(plaintextSize),
                                    from: senders[index],
                                    to: recipients[index],
                                    encoder: encoder
                                )
                            }
                        }
                        return (index, lists)
                    }
                }
            }
            for try await batch in group {
                for (index, lists) in batch { out[index] = lists }
            }
        }
        return out
    }

    /// The one message `connections` sends through at the top of the ceiling; it has no frame form.
    static func probe(from sender: BenchUser, to recipient: BenchUser) throws -> SealedMessage {
        let envelope = try Envelope.seal(
            plaintext: Array("probe".utf8),
            from: sender.token,
            identity: sender.identity,
            to: recipient.token,
            recipientKeys: recipient.identity.publicKeys
        )
        let json = try WireCoding.makeEncoder().encode(envelope)
        return SealedMessage(
            id: envelope.header.messageID.lowercasedString,
            body: ByteBuffer(bytes: json),
            frame: ByteBuffer()
        )
    }

    private static func seal(
        _ plaintext: [UInt8],
        from sender: BenchUser,
        to recipient: BenchUser,
        encoder: JSONEncoder
    ) throws -> SealedMessage {
        let envelope = try Envelope.seal(
            plaintext: plaintext,
            from: sender.token,
            identity: sender.identity,
            to: recipient.token,
            recipientKeys: recipient.identity.publicKeys
        )
        let json = try encoder.encode(envelope)
        let text = Array("{\"envelope\":".utf8) + json + Array(",\"type\":\"send\"}".utf8)
        var frame = ByteBuffer()
        var masks = MaskKeys()
        text.withUnsafeBytes {
            ClientFrames.masked(opcode: ClientFrames.text, payload: $0, key: masks.next(), into: &frame)
        }
        return SealedMessage(
            id: envelope.header.messageID.lowercasedString,
            body: ByteBuffer(bytes: json),
            frame: frame
        )
    }
}
