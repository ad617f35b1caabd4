import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

/// The published test vector in `schema/vectors/envelope-v2.json`: a version 2 envelope whose plaintext is `text`
/// content with a one-hour timer, so its header's `expiresAt` is `sentAt` plus an hour. Also opened by
/// `scripts/check_envelope_vector.py` with Python's `cryptography`, following only SECURITY.md.
@Suite struct EnvelopeVersion2VectorTests {
    static let vectorURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema/vectors/envelope-v2.json")
    static let sentAt = Date(timeIntervalSince1970: 1_767_225_600.500)
    static let disappearAfter: UInt32 = 3_600

    @Test func publishedVectorOpensToTextThatDisappearsAfterAnHour() throws {
        let vector = try JSONDecoder().decode(
            EnvelopeVectorTests.Vector.self,
            from: try Data(contentsOf: Self.vectorURL)
        )
        let recipient = try EnvelopeVectorTests.identity(of: vector.recipient)

        let envelope = try Envelope(serialized: Array(try #require(Data(base64Encoded: vector.serialized))))

        #expect(envelope == vector.envelope)
        #expect(envelope.header.version == 2)
        #expect(envelope.header.encodedSize == 129)
        #expect(envelope.header.expiresAtMilliseconds == envelope.header.sentAtMilliseconds + 3_600_000)
        let opened = try envelope.open(
            as: vector.recipient.token,
            identity: recipient,
            senderKeys: vector.sender.publicKeys
        )
        #expect(opened.text == vector.plaintext)
        let body = try opened.body()
        #expect(body.disappearAfter == Self.disappearAfter)
        guard case .text(let text) = body.content else {
            Issue.record("the vector's content is not text")
            return
        }
        #expect(text.hasPrefix("Wots test vector v2"))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["WOTS_WRITE_VECTORS"] == "1"))
    func writeVector() throws {
        let alice = TestIdentities.alice
        let bob = TestIdentities.bob
        let body = try MessageBody(
            .text("Wots test vector v2: alice to bob, a text that disappears after an hour. Ünïcødé ✓ 👋"),
            disappearAfter: Self.disappearAfter
        )
        let plaintext = try body.encoded()
        let envelope = try Envelope.seal(
            plaintext: plaintext,
            messageID: UUID(uuidString: "6BA7B810-9DAD-41D1-80B4-00C04FD430C8")!,
            sentAt: Self.sentAt,
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys,
            version: 2,
            expiresAfter: .seconds(Int64(Self.disappearAfter))
        )
        let vector = EnvelopeVectorTests.Vector(
            description: "Envelope v2 from alice to bob (test keys, never use them): text content with disappearAfter "
                + "3600, so expiresAt = sentAt + 3,600,000 ms. Open it with SECURITY.md.",
            sender: try EnvelopeVectorTests.party(alice),
            recipient: try EnvelopeVectorTests.party(bob),
            plaintext: String(decoding: plaintext, as: UTF8.self),
            serialized: Data(envelope.serialized).base64EncodedString(),
            envelope: envelope,
            safetyNumber: SafetyNumber(alice.fingerprint, bob.fingerprint).description
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(vector) + Data("\n".utf8)).write(to: Self.vectorURL)
    }
}
