import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

/// The published test vector in `schema/vectors/envelope-v1.json`, also checked by `scripts/check_envelope_vector.py`
/// with Python's `cryptography` following only SECURITY.md.
@Suite struct EnvelopeVectorTests {
    static let vectorURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema/vectors/envelope-v1.json")

    struct Party: Codable {
        var nickname: String
        var token: Token
        var signingPrivateKey: String
        var encryptionPrivateKey: String
        var publicKeys: PublicKeys
        var fingerprint: Fingerprint
    }

    struct Vector: Codable {
        var description: String
        var sender: Party
        var recipient: Party
        var plaintext: String
        var serialized: String
        var envelope: Envelope
        var safetyNumber: String
    }

    static func identity(of party: Party) throws -> IdentityKeys {
        try IdentityKeys(
            signingPKCS8DER: Array(try #require(Data(base64Encoded: party.signingPrivateKey))),
            encryptionPKCS8DER: Array(try #require(Data(base64Encoded: party.encryptionPrivateKey)))
        )
    }

    @Test func publishedVectorOpensToItsPlaintext() throws {
        let vector = try JSONDecoder().decode(Vector.self, from: try Data(contentsOf: Self.vectorURL))
        let recipient = try Self.identity(of: vector.recipient)
        let sender = try Self.identity(of: vector.sender)
        #expect(recipient.publicKeys == vector.recipient.publicKeys)
        #expect(sender.fingerprint == vector.sender.fingerprint)

        let envelope = try Envelope(serialized: Array(try #require(Data(base64Encoded: vector.serialized))))
        #expect(envelope == vector.envelope)
        let opened = try envelope.open(
            as: vector.recipient.token,
            identity: recipient,
            senderKeys: vector.sender.publicKeys
        )
        #expect(opened.text == vector.plaintext)
        #expect(opened.sender == vector.sender.token)
        #expect(SafetyNumber(sender.fingerprint, recipient.fingerprint).description == vector.safetyNumber)
    }

    /// A party of a vector: the test identity's keys, private ones included.
    static func party(_ test: TestIdentity) throws -> Party {
        Party(
            nickname: test.nickname.value,
            token: test.token,
            signingPrivateKey: Data(try test.identity.signingPKCS8DER()).base64EncodedString(),
            encryptionPrivateKey: Data(try test.identity.encryptionPKCS8DER()).base64EncodedString(),
            publicKeys: test.publicKeys,
            fingerprint: test.fingerprint
        )
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["WOTS_WRITE_VECTORS"] == "1"))
    func writeVector() throws {
        let alice = TestIdentities.alice
        let bob = TestIdentities.bob
        let plaintext = """
            Wots test vector v1: alice to bob.
            Ünïcødé survives: “quotes”, ✓, 👋, and this line makes the message longer than one 256-byte padding \
            block, so the padding spans into a second block.
            Two lines of filler follow: the quick brown fox jumps over the lazy dog, 0123456789.
            The quick brown fox jumps over the lazy dog again, so the message is past 256 bytes.
            """
        let envelope = try Envelope.seal(
            plaintext: Array(plaintext.utf8),
            messageID: UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!,
            sentAt: Date(timeIntervalSince1970: 1_735_689_600.250),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys,
            version: 1
        )
        let vector = Vector(
            description: "Envelope v1 from alice to bob (test keys, never use them). Open it with SECURITY.md.",
            sender: try Self.party(alice),
            recipient: try Self.party(bob),
            plaintext: plaintext,
            serialized: Data(envelope.serialized).base64EncodedString(),
            envelope: envelope,
            safetyNumber: SafetyNumber(alice.fingerprint, bob.fingerprint).description
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(vector) + Data("\n".utf8)).write(to: Self.vectorURL)
    }
}
