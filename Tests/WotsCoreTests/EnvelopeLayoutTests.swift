import Foundation
import Testing
import WotsCore

@Suite struct EnvelopeLayoutTests {
    static func sample(version: UInt8 = 2) throws -> Envelope {
        let header = EnvelopeHeader(
            version: version,
            messageID: UUID(),
            sender: try Token(bytes: Array(repeating: 1, count: 16)),
            senderFingerprint: try Fingerprint(bytes: Array(repeating: 2, count: 32)),
            recipient: try Token(bytes: Array(repeating: 3, count: 16)),
            recipientFingerprint: try Fingerprint(bytes: Array(repeating: 4, count: 32)),
            sentAtMilliseconds: 1_700_000_000_123,
            expiresAtMilliseconds: version == 1 ? 0 : 1_700_000_002_123
        )
        return Envelope(
            header: header,
            wrappedKey: Array(repeating: 5, count: 256),
            nonce: Array(repeating: 6, count: 12),
            ciphertext: Array(repeating: 7, count: 272),
            signature: Array(repeating: 8, count: 256)
        )
    }

    @Test func aVersion1HeaderIs121BytesAndAVersion2HeaderAddsExpiresAt() throws {
        #expect(try Self.sample(version: 1).header.encoded.count == 121)
        let header = try Self.sample(version: 2).header
        #expect(header.encoded.count == 129)
        #expect(Array(header.encoded.suffix(8)) == [0, 0, 0x01, 0x8B, 0xCF, 0xE5, 0x70, 0x4B])
    }

    @Test(arguments: [UInt8(1), 2])
    func serializedEnvelopesRoundTrip(version: UInt8) throws {
        let envelope = try Self.sample(version: version)
        #expect(envelope.serialized.count == envelope.serializedSize)
        #expect(try Envelope(serialized: envelope.serialized) == envelope)
    }

    @Test(arguments: [UInt8(1), 2])
    func jsonEnvelopesRoundTrip(version: UInt8) throws {
        let envelope = try Self.sample(version: version)
        let json = try JSONEncoder().encode(envelope)
        #expect(try JSONDecoder().decode(Envelope.self, from: json) == envelope)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        #expect((object?["expiresAt"] != nil) == (version == 2))
    }

    @Test(arguments: [UInt8(1), 2])
    func theSignedBytesStartWithTheirVersionsLabelAndExcludeTheSignature(version: UInt8) throws {
        let envelope = try Self.sample(version: version)
        let signed = envelope.signedBytes
        let label = Array("wots-envelope-v\(version)".utf8) + [0]
        #expect(signed.starts(with: label))
        #expect(signed.count == label.count + envelope.serializedSize - 2 - 256)
        // The label, then every serialized byte before the signature's length and the signature.
        #expect(signed == label + envelope.serialized.dropLast(2 + 256))
    }

    @Test func aVersion2JSONEnvelopeWithoutExpiresAtIsRefused() throws {
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.sample())) as? [String: Any]
        object?["expiresAt"] = nil
        let json = try JSONSerialization.data(withJSONObject: object ?? [:])
        #expect(throws: WotsError.self) { try JSONDecoder().decode(Envelope.self, from: json) }
    }

    @Test func anExpiryNotAfterSentAtIsRefused() throws {
        var envelope = try Self.sample()
        envelope.header.expiresAtMilliseconds = envelope.header.sentAtMilliseconds
        #expect(throws: WotsError.self) { try Envelope(serialized: envelope.serialized) }
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
        bytes[0] = 3
        #expect(throws: WotsError(.unsupportedVersion, "")) { try Envelope(serialized: bytes) }
    }
}
