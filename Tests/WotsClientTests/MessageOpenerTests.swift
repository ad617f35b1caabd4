import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@testable import WotsClient

/// Opening mail from senders whose keys are pinned needs no relay: these run without one.
@Suite struct MessageOpenerTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    func aliceOpener() throws -> MessageOpener {
        var contacts = ContactBook()
        contacts.pin(bob.entry())
        contacts.pin(mallory.entry())
        // Nothing here may reach the relay: the URL is a port nobody listens on.
        let relay = try RelayClient(baseURL: "http://127.0.0.1:9")
        return MessageOpener(
            relay: relay,
            token: alice.token,
            identity: alice.identity,
            contacts: contacts,
            seen: SeenMessages()
        )
    }

    func delivered(
        _ text: String,
        from sender: TestIdentity,
        to recipient: TestIdentity? = nil,
        id: UUID = UUID(),
        version: UInt8 = 2
    ) throws -> DeliveredMessage {
        let recipient = recipient ?? alice
        let envelope = try Envelope.seal(
            plaintext: version == 1 ? Array(text.utf8) : MessageBody(.text(text)).encoded(),
            messageID: id,
            from: sender.token,
            identity: sender.identity,
            to: recipient.token,
            recipientKeys: recipient.publicKeys,
            version: version
        )
        return DeliveredMessage(seq: 1, receivedAt: Date(), envelope: envelope)
    }

    @Test func aVersion1TextFromAnOlderClientStillOpens() async throws {
        var opener = try aliceOpener()
        let message = try #require(try await opener.open(try delivered("from before v2", from: bob, version: 1)))
        #expect(message.isValid)
        #expect(message.text == "from before v2")
    }

    @Test func aMessageFromAPinnedContactIsVerifiedAndDecrypted() async throws {
        var opener = try aliceOpener()
        let opened = try await opener.open(try delivered("hi alice", from: bob))
        let message = try #require(opened)
        #expect(message.isValid)
        #expect(message.text == "hi alice")
        #expect(message.from == bob.nickname)
        #expect(message.acknowledge)
    }

    @Test func aForgedSenderIsReportedAndNeverShownAsValid() async throws {
        var opener = try aliceOpener()
        // Mallory signs with her key but writes Bob's token and fingerprint in the header.
        var forged = try delivered("send money", from: mallory)
        forged.envelope.header.sender = bob.token
        forged.envelope.header.senderFingerprint = bob.fingerprint
        let opened = try await opener.open(forged)
        let message = try #require(opened)
        #expect(!message.isValid)
        #expect(message.text == nil)
        #expect(message.problem?.code == .badSignature)
        #expect(message.from == bob.nickname)
    }

    @Test func aTamperedCiphertextFailsVerification() async throws {
        var opener = try aliceOpener()
        var tampered = try delivered("original", from: bob)
        tampered.envelope.ciphertext[0] ^= 0x01
        let opened = try await opener.open(tampered)
        let message = try #require(opened)
        #expect(message.problem?.code == .badSignature)
    }

    @Test func aMessageForSomeoneElseIsRefused() async throws {
        var opener = try aliceOpener()
        let opened = try await opener.open(try delivered("for bob", from: mallory, to: bob))
        let message = try #require(opened)
        #expect(message.problem?.code == .notForMe)
    }

    @Test func aRedeliveredMessageIsDroppedOnceSeen() async throws {
        var opener = try aliceOpener()
        let delivery = try delivered("once", from: bob)
        let opened = try await opener.open(delivery)
        let first = try #require(opened)
        opener.markSeen(first.key)
        let again = try await opener.open(delivery)
        #expect(again == nil)
    }

    @Test func theJSONFormIsStable() throws {
        let message = ReceivedMessage(
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!,
            seq: 7,
            from: bob.nickname,
            fromToken: bob.token,
            senderFingerprint: bob.fingerprint,
            sentAt: Date(timeIntervalSince1970: 1_700_000_000),
            receivedAt: Date(timeIntervalSince1970: 1_700_000_001),
            text: "hi",
            problem: nil,
            acknowledge: true
        )
        let json = try #require(String(data: try WireCoding.makeEncoder().encode(message), encoding: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(
            Set(object.keys)
                == [
                    "id", "seq", "from", "fromToken", "senderFingerprint", "sentAt", "receivedAt", "text", "valid",
                    "error", "warnings",
                ]
        )
        #expect(object["valid"] as? Bool == true)
        #expect(object["text"] as? String == "hi")
        #expect(object["error"] is NSNull)
    }
}
