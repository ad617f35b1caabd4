import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

/// The published vector `schema/vectors/group-envelope-v1.json`: a group state with its canonical bytes and hash,
/// and a group envelope from alice to bob and carol under it, with each recipient's slot. Regenerate with
/// `WOTS_WRITE_VECTORS=1`.
@Suite struct GroupEnvelopeVectorTests {
    static let vectorURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema/vectors/group-envelope-v1.json")

    struct Slot: Codable {
        var recipient: Token
        var wrappedKey: String
    }

    struct Vector: Codable {
        var description: String
        var sender: EnvelopeVectorTests.Party
        var recipients: [EnvelopeVectorTests.Party]
        var state: GroupState
        var stateBytes: String
        var stateHash: String
        var plaintext: String
        var serialized: String
        var slots: [Slot]
    }

    static func state() throws -> GroupState {
        let alice = TestIdentities.alice
        let bob = TestIdentities.bob
        let carol = TestIdentities.carol
        return GroupState(
            id: try GroupID(hex: "6ba7b8109dad41d180b400c04fd430c8"),
            version: 1,
            previous: GroupState.noPreviousState,
            name: "Wots vector group ✓",
            avatar: .dragon,
            members: [
                GroupMember(token: alice.token, fingerprint: alice.fingerprint, isAdmin: true, joinedAt: 1),
                GroupMember(token: bob.token, fingerprint: bob.fingerprint, joinedAt: 1),
                GroupMember(token: carol.token, fingerprint: carol.fingerprint, joinedAt: 1),
            ]
        )
    }

    @Test func publishedVectorOpensForEveryRecipient() throws {
        let vector = try JSONDecoder().decode(Vector.self, from: try Data(contentsOf: Self.vectorURL))
        #expect(vector.state == (try Self.state()))
        #expect(Data(vector.state.stateBytes).base64EncodedString() == vector.stateBytes)
        #expect(Hex.encode(vector.state.stateHash) == vector.stateHash)
        let envelope = try GroupEnvelope(serialized: Array(try #require(Data(base64Encoded: vector.serialized))))
        #expect(envelope.header.membershipStateHash == vector.state.stateHash)
        let slots = try vector.slots.map {
            GroupSlot(recipient: $0.recipient, wrappedKey: Array(try #require(Data(base64Encoded: $0.wrappedKey))))
        }
        try envelope.verifyForRelay(senderKeys: vector.sender.publicKeys, slots: slots)
        for (party, slot) in zip(vector.recipients, slots) {
            let opened = try envelope.open(
                slot: slot.wrappedKey,
                as: party.token,
                identity: try EnvelopeVectorTests.identity(of: party),
                senderKeys: vector.sender.publicKeys
            )
            #expect(String(decoding: opened.plaintext, as: UTF8.self) == vector.plaintext)
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["WOTS_WRITE_VECTORS"] == "1"))
    func writeVector() throws {
        let alice = TestIdentities.alice
        let recipients = [TestIdentities.bob, TestIdentities.carol].sorted { $0.token < $1.token }
        let state = try Self.state()
        let plaintext = #"{"disappearAfter":3600,"text":"Wots group vector: alice to bob and carol.","type":"text"}"#
        let sealed = try GroupEnvelope.seal(
            plaintext: Array(plaintext.utf8),
            messageID: UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!,
            sentAt: Date(timeIntervalSince1970: 1_767_225_600.5),
            from: alice.token,
            identity: alice.identity,
            groupID: state.id,
            membershipVersion: state.version,
            membershipStateHash: state.stateHash,
            senderSequence: 1,
            to: recipients.map { GroupRecipientKeys(token: $0.token, publicKeys: $0.publicKeys) },
            expiresAfter: .seconds(3600)
        )
        let vector = Vector(
            description: "Group envelope (version 3) from alice to bob and carol (test keys, never use them), under "
                + "the group state given with its canonical bytes (base64) and hash (hex); slots in header order. "
                + "Open it with SECURITY.md, \"Groups\".",
            sender: try EnvelopeVectorTests.party(alice),
            recipients: try recipients.map(EnvelopeVectorTests.party),
            state: state,
            stateBytes: Data(state.stateBytes).base64EncodedString(),
            stateHash: Hex.encode(state.stateHash),
            plaintext: plaintext,
            serialized: Data(sealed.envelope.serialized).base64EncodedString(),
            slots: sealed.slots.map {
                Slot(recipient: $0.recipient, wrappedKey: Data($0.wrappedKey).base64EncodedString())
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(vector) + Data("\n".utf8)).write(to: Self.vectorURL)
    }
}
