import Foundation
import Testing
import WotsCore

/// The relay writes its hottest frames by hand; every one must be, byte for byte, what Foundation's encoder with the
/// wire settings writes, for any envelope, date and `ref` a frame can carry.
@Suite struct HandWrittenFrameTests {
    private static func foundation(_ frame: RelayFrame) throws -> String {
        String(decoding: try WireCoding.makeEncoder().encode(frame), as: UTF8.self)
    }

    private static func handWritten(_ frame: RelayFrame) throws -> String {
        String(decoding: try frame.jsonBytes(), as: UTF8.self)
    }

    private static func randomEnvelope(version: UInt8, using generator: inout some RandomNumberGenerator) throws
        -> Envelope
    {
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let sentAt = UInt64.random(in: 1_577_836_800_000...4_102_444_800_000, using: &generator)
        let header = EnvelopeHeader(
            version: version,
            messageID: UUID(),
            sender: try Token(bytes: bytes(16)),
            senderFingerprint: try Fingerprint(bytes: bytes(32)),
            recipient: try Token(bytes: bytes(16)),
            recipientFingerprint: try Fingerprint(bytes: bytes(32)),
            sentAtMilliseconds: sentAt,
            expiresAtMilliseconds: version == 1 || Bool.random(using: &generator) ? 0 : sentAt + 2_000
        )
        return Envelope(
            header: header,
            wrappedKey: bytes(256),
            nonce: bytes(12),
            ciphertext: bytes(Int.random(in: 0...700, using: &generator)),
            signature: bytes(256)
        )
    }

    private static func randomDate(using generator: inout some RandomNumberGenerator) -> Date {
        let milliseconds = Double(Int64.random(in: 0..<253_402_300_800_000, using: &generator))
        let jitter = Double.random(in: -0.0004...0.9999, using: &generator)
        return Date(timeIntervalSince1970: (milliseconds + jitter) / 1000)
    }

    @Test func messageFramesAreWhatFoundationWrites() throws {
        var generator = SystemRandomNumberGenerator()
        for index in 0..<400 {
            let envelope = try Self.randomEnvelope(version: index % 3 == 0 ? 1 : 2, using: &generator)
            let date = Self.randomDate(using: &generator)
            let frames: [RelayFrame] = [
                .message(DeliveredMessage(seq: Int64.random(in: 1...Int64.max), receivedAt: date, envelope: envelope)),
                .ephemeralMessage(receivedAt: date, envelope: envelope),
            ]
            for frame in frames { #expect(try Self.handWritten(frame) == Self.foundation(frame)) }
        }
    }

    @Test(arguments: [nil, "", "r1", "a/b+c=d ~!", "quote\"d", "back\\slash", "new\nline", "tab\t", "é", "\u{7F}"])
    func repliesAreWhatFoundationWritesForAnyReference(ref: String?) throws {
        var generator = SystemRandomNumberGenerator()
        let keys = try (0..<Int.random(in: 0...5)).map { _ in
            MessageKey(sender: try Token(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) }), id: UUID())
        }
        let frames: [RelayFrame] = [
            .accepted(
                ref: ref,
                id: UUID(),
                seq: Int64.random(in: 1...1_000_000),
                receivedAt: Self.randomDate(using: &generator)
            ),
            .acked(ref: ref, messages: keys),
        ]
        for frame in frames { #expect(try Self.handWritten(frame) == Self.foundation(frame)) }
    }

    @Test func datesAroundEveryEdgeAreWhatFoundationWrites() throws {
        let edges: [Double] = [
            0, 0.0005, 0.999, 59.999, 86_399.999, 86_400, 951_782_400, 951_868_800, 4_107_542_400,
            1_795_433_400.061, 1_795_433_400.0619, 253_402_300_799.999, -0.001, -86_400, 253_402_300_800,
        ]
        for seconds in edges {
            let frame = RelayFrame.accepted(
                ref: nil,
                id: UUID(),
                seq: 1,
                receivedAt: Date(timeIntervalSince1970: seconds)
            )
            #expect(try Self.handWritten(frame) == Self.foundation(frame), "at \(seconds) s")
        }
    }

    /// `POST /v1/messages` answers with a receipt written by hand.
    @Test func sendReceiptsAreWhatFoundationWrites() throws {
        var generator = SystemRandomNumberGenerator()
        for seq in [1, 9, 10, Int64.random(in: 1...Int64.max, using: &generator), Int64.max] {
            let receipt = SendReceipt(id: UUID(), seq: seq, receivedAt: Self.randomDate(using: &generator))
            let foundation = String(decoding: try WireCoding.makeEncoder().encode(receipt), as: UTF8.self)
            #expect(String(decoding: receipt.jsonBytes(), as: UTF8.self) == foundation)
        }
    }
}
