import Foundation
import Testing
import WotsCore

@Suite struct EnvelopeLayoutTests {
    static func sample() throws -> Envelope {
        let header = EnvelopeHeader(
            messageID: UUID(),
            sender: try Token(bytes: Array(repeating: 1, count: 16)),
            senderFingerprint: try Fingerprint(bytes: Array(repeating: 2, count: 32)),
            recipient: try Token(bytes: Array(repeating: 3, count: 16)),
            recipientFingerprint: try Fingerprint(bytes: Array(repeating: 4, count: 32)),
            sentAtMilliseconds: 1_700_000_000_123
        )
        return Envelope(
            header: header,
            wrappedKey: Array(repeating: 5, count: 256),
            nonce: Array(repeating: 6, count: 12),
            ciphertext: Array(repeating: 7, count: 272),
            signature: Array(repeating: 8, count: 256)
        )
    }

    @Test func theHeaderIs121Bytes() throws {
        #expect(try Self.sample().header.encoded.count == EnvelopeHeader.encodedSize)
    }

    @Test func serializedEnvelopesRoundTrip() throws {
        let envelope = try Self.sample()
        #expect(envelope.serialized.count == envelope.serializedSize)
        #expect(try Envelope(serialized: envelope.serialized) == envelope)
    }

    @Test func jsonEnvelopesRoundTrip() throws {
        let envelope = try Self.sample()
        let json = try JSONEncoder().encode(envelope)
        #expect(try JSONDecoder().decode(Envelope.self, from: json) == envelope)
    }

    @Test func theSignedBytesStartWithTheLabelAndExcludeTheSignature() throws {
        let envelope = try Self.sample()
        let signed = envelope.signedBytes
        #expect(signed.starts(with: Array("wots-envelope-v1".utf8) + [0]))
        #expect(signed.count == Envelope.signatureLabel.count + envelope.serializedSize - 2 - 256)
    }

    @Test func everyTruncationIsRefusedWithoutACrash() throws {
        let bytes = try Self.sample().serialized
        for length in 0..<bytes.count {
            #expect(throws: WotsError.self) { try Envelope(serialized: Array(bytes.prefix(length))) }
        }
        #expect(throws: WotsError(.malformedEnvelope, "")) { try Envelope(serialized: bytes + [0]) }
    }

    @Test func anotherVersionIsRefusedAsUnsupported() throws {
        var bytes = try Self.sample().serialized
        bytes[0] = 2
        #expect(throws: WotsError(.unsupportedVersion, "")) { try Envelope(serialized: bytes) }
    }
}
