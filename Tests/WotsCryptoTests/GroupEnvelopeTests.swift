import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsCrypto

@Suite struct GroupEnvelopeTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol
    let mallory = TestIdentities.mallory
    let groupID = try! GroupID(hex: "00112233445566778899aabbccddeeff")
    let stateHash = [UInt8](repeating: 0xAB, count: 32)

    func seal(
        _ text: String = "lunch at noon?",
        to recipients: [GroupRecipientKeys],
        expiresAfter: Duration? = .seconds(3600)
    ) throws -> SealedGroupMessage {
        try GroupEnvelope.seal(
            plaintext: Array(text.utf8),
            sentAt: Date(timeIntervalSince1970: 1_767_225_600.5),
            from: alice.token,
            identity: alice.identity,
            groupID: groupID,
            membershipVersion: 7,
            membershipStateHash: stateHash,
            senderSequence: 42,
            to: recipients,
            expiresAfter: expiresAfter
        )
    }

    var threeRecipients: [GroupRecipientKeys] {
        [bob, carol, mallory].map { GroupRecipientKeys(token: $0.token, publicKeys: $0.publicKeys) }
    }

    func slot(_ sealed: SealedGroupMessage, for member: TestIdentity) throws -> [UInt8] {
        try #require(sealed.slots.first { $0.recipient == member.token }).wrappedKey
    }

    func opens(_ sealed: SealedGroupMessage, as member: TestIdentity) throws -> OpenedGroupMessage {
        try sealed.envelope.open(
            slot: try slot(sealed, for: member),
            as: member.token,
            identity: member.identity,
            senderKeys: alice.publicKeys
        )
    }

    @Test func everyOneOfThreeRecipientsOpensTheSameBodyWithItsOwnSlot() throws {
        let sealed = try seal(to: threeRecipients)
        #expect(sealed.slots.count == 3)
        #expect(sealed.envelope.header.recipients.map(\.token) == [bob, carol, mallory].map(\.token).sorted())
        for member in [bob, carol, mallory] {
            let opened = try opens(sealed, as: member)
            #expect(opened.plaintext == Array("lunch at noon?".utf8))
            #expect(opened.sender == alice.token)
            #expect(opened.header.senderSequence == 42)
            #expect(opened.header.expiresAtMilliseconds == 1_767_229_200_500)
        }
        let parsed = try GroupEnvelope(serialized: sealed.envelope.serialized)
        #expect(parsed == sealed.envelope)
        #expect(sealed.envelope.serializedSize == sealed.envelope.serialized.count)
        #expect(sealed.envelope.header.encoded.count == 179 + 3 * 80)
        try sealed.envelope.verifyForRelay(senderKeys: alice.publicKeys, slots: sealed.slots)
    }

    /// 256 recipients share bob's keys under distinct tokens (generating 256 RSA keys would take a minute).
    @Test func twoHundredFiftySixRecipientsEachOpenTheirOwnSlot() throws {
        let tokens = try (0..<256).map { _ in try Token(bytes: SecureRandom.bytes(16)) }
        let sealed = try seal(to: tokens.map { GroupRecipientKeys(token: $0, publicKeys: bob.publicKeys) })
        #expect(Set(sealed.slots.map(\.wrappedKey)).count == 256)
        try sealed.envelope.verifyForRelay(senderKeys: alice.publicKeys, slots: sealed.slots)
        for slot in [sealed.slots[0], sealed.slots[128], sealed.slots[255]] {
            let opened = try sealed.envelope.open(
                slot: slot.wrappedKey,
                as: slot.recipient,
                identity: bob.identity,
                senderKeys: alice.publicKeys
            )
            #expect(opened.plaintext == Array("lunch at noon?".utf8))
        }
        let tooMany = tokens + [try Token(bytes: SecureRandom.bytes(16))]
        #expect(throws: WotsError(.malformedEnvelope, "")) {
            try seal(to: tooMany.map { GroupRecipientKeys(token: $0, publicKeys: bob.publicKeys) })
        }
    }

    @Test func anAccountNotListedOrWithAnotherKeyIsNotARecipient() throws {
        let sealed = try seal(to: threeRecipients)
        #expect(throws: WotsError(.notForMe, "")) {
            try sealed.envelope.open(
                slot: try slot(sealed, for: bob),
                as: alice.token,
                identity: alice.identity,
                senderKeys: alice.publicKeys
            )
        }
        #expect(throws: WotsError(.notForMe, "")) {
            try sealed.envelope.open(
                slot: try slot(sealed, for: carol),
                as: carol.token,
                identity: bob.identity,
                senderKeys: alice.publicKeys
            )
        }
        #expect(throws: WotsError(.senderKeyMismatch, "")) {
            try sealed.envelope.open(
                slot: try slot(sealed, for: bob),
                as: bob.token,
                identity: bob.identity,
                senderKeys: mallory.publicKeys
            )
        }
    }

    @Test func aSlotWhoseHashIsNotTheSignedOneIsRefusedBeforeDecrypting() throws {
        let sealed = try seal(to: threeRecipients)
        // Carol's slot, and random bytes: neither is ever handed to RSA-OAEP.
        for wrong in [try slot(sealed, for: carol), SecureRandom.bytes(256), []] {
            #expect(throws: WotsError(.badSignature, "")) {
                try sealed.envelope.open(
                    slot: wrong,
                    as: bob.token,
                    identity: bob.identity,
                    senderKeys: alice.publicKeys
                )
            }
        }
    }

    @Test func theRelayRefusesSlotsThatDoNotMatchTheSignedList() throws {
        let sealed = try seal(to: threeRecipients)
        let check = { (slots: [GroupSlot]) in
            try sealed.envelope.verifyForRelay(senderKeys: self.alice.publicKeys, slots: slots)
        }
        #expect(throws: WotsError(.malformedEnvelope, "")) { try check(Array(sealed.slots.dropLast())) }
        #expect(throws: WotsError(.malformedEnvelope, "")) { try check(sealed.slots.reversed()) }
        var swapped = sealed.slots
        swapped[0].wrappedKey = sealed.slots[1].wrappedKey
        #expect(throws: WotsError(.badSignature, "")) { try check(swapped) }
        #expect(throws: WotsError(.senderKeyMismatch, "")) {
            try sealed.envelope.verifyForRelay(senderKeys: bob.publicKeys, slots: sealed.slots)
        }
    }

    /// What bob's client says when one byte of the serialized body changes at `offset`: nil when it still opens.
    func outcome(flipping offset: Int, in sealed: SealedGroupMessage) throws -> ErrorCode? {
        var bytes = sealed.envelope.serialized
        bytes[offset] ^= 0x01
        do {
            _ = try GroupEnvelope(serialized: bytes).open(
                slot: try slot(sealed, for: bob),
                as: bob.token,
                identity: bob.identity,
                senderKeys: alice.publicKeys
            )
            return nil
        } catch let error as WotsError {
            return error.code
        }
    }

    @Test func aFlippedByteInEveryRegionIsRefusedWithTheRightError() throws {
        let sealed = try seal(to: threeRecipients)
        let header = sealed.envelope.header
        let bobIndex = try #require(header.recipients.firstIndex { $0.token == bob.token })
        let otherIndex = bobIndex == 0 ? 1 : 0
        let entry = { (index: Int) in 179 + 80 * index }
        let headerSize = header.encodedSize
        let cases: [(String, Int, ErrorCode)] = [
            ("version", 0, .unsupportedVersion),
            ("message id", 1, .badSignature),
            ("sender token", 17, .badSignature),
            ("sender fingerprint", 33, .senderKeyMismatch),
            ("group id", 65, .badSignature),
            ("membership version", 88, .badSignature),
            ("membership state hash", 89, .badSignature),
            ("sender sequence", 128, .badSignature),
            ("sent at", 136, .badSignature),
            ("expires at", 144, .badSignature),
            ("key commitment", 145, .badSignature),
            ("recipient count", 178, .malformedEnvelope),
            ("own token", entry(bobIndex) + 15, .notForMe),
            ("own fingerprint", entry(bobIndex) + 16, .notForMe),
            ("own slot hash", entry(bobIndex) + 48, .badSignature),
            ("another's fingerprint", entry(otherIndex) + 16, .badSignature),
            ("another's slot hash", entry(otherIndex) + 79, .badSignature),
            ("nonce length", headerSize + 1, .malformedEnvelope),
            ("nonce", headerSize + 2, .badSignature),
            ("ciphertext", headerSize + 2 + 12 + 4, .badSignature),
            ("tag", headerSize + 2 + 12 + 4 + sealed.envelope.ciphertext.count - 1, .badSignature),
            ("signature", sealed.envelope.serializedSize - 1, .badSignature),
        ]
        for (region, offset, expected) in cases {
            #expect(try outcome(flipping: offset, in: sealed) == expected, "flipping \(region) at \(offset)")
        }
    }

    @Test func recipientListsOutOfOrderOrDuplicatedAreMalformed() throws {
        let sealed = try seal(to: threeRecipients)
        var header = sealed.envelope.header
        header.recipients.swapAt(0, 1)
        #expect(throws: WotsError(.malformedEnvelope, "")) { try header.validate() }
        header.recipients[0] = header.recipients[1]
        #expect(throws: WotsError(.malformedEnvelope, "")) { try header.validate() }
        header.recipients = []
        #expect(throws: WotsError(.malformedEnvelope, "")) { try header.validate() }
        #expect(throws: WotsError(.malformedEnvelope, "")) {
            try GroupEnvelope(serialized: sealed.envelope.serialized + [0])
        }
        #expect(throws: WotsError(.unsupportedVersion, "")) {
            try GroupEnvelope(serialized: try sealFromAliceToBobOneToOne().serialized)
        }
    }

    func sealFromAliceToBobOneToOne() throws -> Envelope {
        try Envelope.seal(
            plaintext: [1, 2, 3],
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
    }

    /// A sender who commits to one key but wraps another for bob (so bob would read a different plaintext than the
    /// others) is caught by the signed key commitment.
    @Test func aSlotWrappingAnotherKeyThanTheCommittedOneDoesNotDecrypt() throws {
        let sealed = try seal(to: threeRecipients)
        var forged = sealed.envelope
        let otherKey = SecureRandom.bytes(32)
        let bobSlot = try bob.identity.encryptionPublicKey.key.encryptOAEP(otherKey)
        let index = try #require(forged.header.recipients.firstIndex { $0.token == bob.token })
        forged.header.recipients[index].slotHash = SHA256.hash(bobSlot)
        forged.ciphertext = try AESGCM.seal(
            MessagePadding.pad(Array("something else".utf8)),
            key: otherKey,
            nonce: forged.nonce,
            aad: forged.header.encoded
        )
        forged.signature = try alice.identity.signing.signPSS(forged.signedBytes)
        #expect(throws: WotsError(.decryptionFailed, "")) {
            try forged.open(slot: bobSlot, as: bob.token, identity: bob.identity, senderKeys: alice.publicKeys)
        }
    }
}
