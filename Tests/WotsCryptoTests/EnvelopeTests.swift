import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsCrypto

@Suite struct EnvelopeTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol
    let mallory = TestIdentities.mallory

    func sealFromAliceToBob(_ text: String = "meet at the usual place", id: UUID = UUID()) throws -> Envelope {
        try Envelope.seal(
            plaintext: Array(text.utf8),
            messageID: id,
            sentAt: Date(timeIntervalSince1970: 1_700_000_000.123),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys,
            expiresAfter: .seconds(60)
        )
    }

    func bobOpens(_ envelope: Envelope, claimedSender: TestIdentity? = nil) throws -> OpenedMessage {
        try envelope.open(as: bob.token, identity: bob.identity, senderKeys: (claimedSender ?? alice).publicKeys)
    }

    @Test func recipientOpensWhatTheSenderSealed() throws {
        let id = UUID()
        let envelope = try sealFromAliceToBob("héllo, bob 👋", id: id)
        let opened = try bobOpens(envelope)
        #expect(opened.text == "héllo, bob 👋")
        #expect(opened.sender == alice.token)
        #expect(opened.recipient == bob.token)
        #expect(opened.messageID == id)
        #expect(opened.header.sentAtMilliseconds == 1_700_000_000_123)
        #expect(envelope.header.senderFingerprint == alice.fingerprint)
        #expect(envelope.header.recipientFingerprint == bob.fingerprint)
    }

    @Test func emptyMessageRoundTrips() throws {
        let opened = try bobOpens(try sealFromAliceToBob(""))
        #expect(opened.plaintext.isEmpty)
    }

    @Test func largeBinaryMessageRoundTrips() throws {
        let payload = SecureRandom.bytes(40_000)
        let envelope = try Envelope.seal(
            plaintext: payload,
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        #expect(try bobOpens(envelope).plaintext == payload)
    }

    @Test func envelopeSurvivesBinaryAndJSONForms() throws {
        let envelope = try sealFromAliceToBob()
        let parsed = try Envelope(serialized: envelope.serialized)
        #expect(parsed == envelope)
        #expect(try bobOpens(parsed).text == "meet at the usual place")
        let json = try JSONEncoder().encode(envelope)
        let decoded = try JSONDecoder().decode(Envelope.self, from: json)
        #expect(try bobOpens(decoded).text == "meet at the usual place")
    }

    @Test func sealingTheSameMessageTwiceGivesDifferentCiphertexts() throws {
        let id = UUID()
        let first = try sealFromAliceToBob(id: id)
        let second = try sealFromAliceToBob(id: id)
        #expect(first.ciphertext != second.ciphertext)
        #expect(first.nonce != second.nonce)
        #expect(first.wrappedKey != second.wrappedKey)
    }

    @Test func defaultMessageIDsAreVersion7UUIDsThatCarryTheirMillisecond() {
        let made = Date(timeIntervalSince1970: 1_796_000_000.123)
        let ids = (0..<200).map { _ in Envelope.newMessageID(at: made) }
        #expect(Set(ids).count == 200, "74 random bits apart within one millisecond")
        for id in ids {
            let text = id.uuidString
            #expect(Array(text)[14] == "7")
            #expect("89AB".contains(Array(text)[19]))
            // 1,796,000,000,123 ms is 0x1A2_29F1_287B.
            #expect(text.hasPrefix("01A229F1-287B-"))
        }
    }

    @Test func messageIDsMadeLaterSortAfterEarlierOnes() {
        let earlier = Envelope.newMessageID(at: Date(timeIntervalSince1970: 1_796_000_000))
        let later = Envelope.newMessageID(at: Date(timeIntervalSince1970: 1_796_000_000.002))
        let earlierBytes = withUnsafeBytes(of: earlier.uuid) { Array($0) }
        #expect(earlierBytes.lexicographicallyPrecedes(withUnsafeBytes(of: later.uuid) { Array($0) }))
    }

    @Test func aDateBeyondFortyEightBitsOfMillisecondsIsClampedNotACrash() {
        let far = Envelope.newMessageID(at: Date(timeIntervalSince1970: 1e15))
        #expect(far.uuidString.hasPrefix("FFFFFFFF-FFFF-7"))
        let before1970 = Envelope.newMessageID(at: Date(timeIntervalSince1970: -5))
        #expect(before1970.uuidString.hasPrefix("00000000-0000-7"))
    }

    @Test func theDefaultIDOfASealedEnvelopeCarriesItsSentAtMillisecond() throws {
        let envelope = try Envelope.seal(
            plaintext: Array("now".utf8),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        let bytes = withUnsafeBytes(of: envelope.header.messageID.uuid) { Array($0) }
        let idMilliseconds = bytes.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let sentAt = UInt64((envelope.header.sentAt.timeIntervalSince1970 * 1000).rounded(.down))
        #expect(idMilliseconds <= sentAt && sentAt - idMilliseconds < 1_000)
    }

    @Test func relayAcceptsTheSendersSignature() throws {
        try sealFromAliceToBob().verifySignature(senderKeys: alice.publicKeys)
    }

    @Test func relayRefusesAnEnvelopeCheckedAgainstSomeoneElsesKeys() throws {
        let envelope = try sealFromAliceToBob()
        #expect(throws: WotsError(.senderKeyMismatch, "")) {
            try envelope.verifySignature(senderKeys: mallory.publicKeys)
        }
    }

    // MARK: - Tampering

    enum Tamper: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case version, messageID, sender, senderFingerprint, recipient, recipientFingerprint, sentAt, expiresAt
        case wrappedKey, nonce, ciphertext, tag, signature

        var testDescription: String { self.rawValue }

        var expected: ErrorCode {
            switch self {
            case .version: .unsupportedVersion
            case .senderFingerprint: .senderKeyMismatch
            case .recipient, .recipientFingerprint: .notForMe
            default: .badSignature
            }
        }

        func apply(to original: Envelope) throws -> Envelope {
            var envelope = original
            func flip(_ bytes: [UInt8], at index: Int = 0) -> [UInt8] {
                var bytes = bytes
                bytes[index] ^= 0x01
                return bytes
            }
            switch self {
            case .version: envelope.header.version ^= 0x01
            case .messageID:
                var raw = withUnsafeBytes(of: envelope.header.messageID.uuid) { Array($0) }
                raw[15] ^= 0x01
                envelope.header.messageID = raw.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
            case .sender: envelope.header.sender = try Token(bytes: flip(envelope.header.sender.bytes))
            case .senderFingerprint:
                envelope.header.senderFingerprint = try Fingerprint(
                    bytes: flip(envelope.header.senderFingerprint.bytes)
                )
            case .recipient: envelope.header.recipient = try Token(bytes: flip(envelope.header.recipient.bytes))
            case .recipientFingerprint:
                envelope.header.recipientFingerprint = try Fingerprint(
                    bytes: flip(envelope.header.recipientFingerprint.bytes, at: 31)
                )
            case .sentAt: envelope.header.sentAtMilliseconds ^= 0x01
            case .expiresAt: envelope.header.expiresAtMilliseconds ^= 0x01
            case .wrappedKey: envelope.wrappedKey = flip(envelope.wrappedKey, at: 100)
            case .nonce: envelope.nonce = flip(envelope.nonce, at: 11)
            case .ciphertext: envelope.ciphertext = flip(envelope.ciphertext, at: 3)
            case .tag: envelope.ciphertext = flip(envelope.ciphertext, at: envelope.ciphertext.count - 1)
            case .signature: envelope.signature = flip(envelope.signature, at: 255)
            }
            return envelope
        }
    }

    @Test(arguments: Tamper.allCases)
    func flippingOneBitAnywhereIsRefusedWithTheRightReason(_ tamper: Tamper) throws {
        let envelope = try tamper.apply(to: try sealFromAliceToBob())
        let error = try #require(throws: WotsError.self) { try bobOpens(envelope) }
        #expect(error.code == tamper.expected, "\(tamper): \(error)")
    }

    @Test(arguments: Tamper.allCases.filter { $0 != .recipient && $0 != .recipientFingerprint })
    func relayRefusesTamperedEnvelopesWithoutOpeningThem(_ tamper: Tamper) throws {
        let envelope = try tamper.apply(to: try sealFromAliceToBob())
        let error = try #require(throws: WotsError.self) {
            try envelope.verifySignature(senderKeys: alice.publicKeys)
        }
        #expect(error.code == tamper.expected)
    }

    // MARK: - Re-signing, re-addressing, wrong recipient

    @Test func envelopeReSignedByAThirdPartyIsRefusedForTheClaimedSender() throws {
        var envelope = try sealFromAliceToBob()
        // Mallory strips alice's signature and signs with her own key, leaving alice as the named sender.
        envelope.header.senderFingerprint = mallory.fingerprint
        let forged = try Envelope.seal(
            plaintext: [],
            from: alice.token,
            identity: mallory.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        #expect(forged.header.sender == alice.token)
        #expect(throws: WotsError(.senderKeyMismatch, "")) { try bobOpens(forged) }
        #expect(throws: WotsError(.senderKeyMismatch, "")) { try bobOpens(envelope) }
    }

    @Test func envelopeReattributedToTheReSignerDoesNotDecrypt() throws {
        // Mallory takes alice's envelope, puts her own sender fields in the header and signs it: the signature is
        // hers and valid, but the header was alice's GCM associated data, so the ciphertext no longer opens.
        var envelope = try sealFromAliceToBob()
        envelope.header.sender = mallory.token
        envelope.header.senderFingerprint = mallory.fingerprint
        envelope.signature = try resign(envelope, as: mallory)
        try envelope.verifySignature(senderKeys: mallory.publicKeys)
        #expect(throws: WotsError(.decryptionFailed, "")) { try bobOpens(envelope, claimedSender: mallory) }
        #expect(throws: WotsError(.senderKeyMismatch, "")) { try bobOpens(envelope, claimedSender: alice) }
    }

    @Test func envelopeReaddressedToAnotherRecipientIsRefused() throws {
        var envelope = try sealFromAliceToBob()
        envelope.header.recipient = carol.token
        envelope.header.recipientFingerprint = carol.fingerprint
        #expect(throws: WotsError(.badSignature, "")) {
            try envelope.open(as: carol.token, identity: carol.identity, senderKeys: alice.publicKeys)
        }
    }

    @Test func envelopeOpenedByTheWrongRecipientIsNotForThem() throws {
        let envelope = try sealFromAliceToBob()
        #expect(throws: WotsError(.notForMe, "")) {
            try envelope.open(as: carol.token, identity: carol.identity, senderKeys: alice.publicKeys)
        }
        // Even claiming bob's token, carol's keys are not the ones named in the header.
        #expect(throws: WotsError(.notForMe, "")) {
            try envelope.open(as: bob.token, identity: carol.identity, senderKeys: alice.publicKeys)
        }
    }

    @Test func envelopeForAnOldKeyOfTheRecipientIsNotForTheNewKey() throws {
        let envelope = try sealFromAliceToBob()
        // Bob's token, but mallory's keys standing in for bob's rotated keys.
        #expect(throws: WotsError(.notForMe, "")) {
            try envelope.open(as: bob.token, identity: mallory.identity, senderKeys: alice.publicKeys)
        }
    }

    // MARK: - Padding

    @Test func paddingHidesTheLengthOfShortMessages() throws {
        let one = try sealFromAliceToBob("a")
        let twoHundred = try sealFromAliceToBob(String(repeating: "x", count: 200))
        #expect(one.ciphertext.count == twoHundred.ciphertext.count)
        #expect(one.ciphertext.count == 256 + 16)
        #expect(one.serializedSize == twoHundred.serializedSize)
    }

    @Test(arguments: [(0, 256), (1, 256), (255, 256), (256, 512), (511, 512), (512, 768)])
    func paddedLengthIsTheNextMultipleOf256(plaintextSize: Int, paddedSize: Int) throws {
        let envelope = try Envelope.seal(
            plaintext: [UInt8](repeating: 0, count: plaintextSize),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        #expect(envelope.ciphertext.count == paddedSize + 16)
        // Trailing zero bytes of the message itself survive padding removal.
        #expect(try bobOpens(envelope).plaintext == [UInt8](repeating: 0, count: plaintextSize))
    }

    // MARK: - Hostile input

    @Test func everyTruncationOfAnEnvelopeIsRefused() throws {
        let serialized = try sealFromAliceToBob().serialized
        for length in 0..<serialized.count {
            #expect(throws: (any Error).self) { try Envelope(serialized: Array(serialized[..<length])) }
        }
        #expect(throws: (any Error).self) { try Envelope(serialized: serialized + [0]) }
    }

    @Test func randomGarbageIsRefusedNotCrashedOn() throws {
        for length in [0, 1, 16, 121, 122, 500, 1_000, 5_000] {
            var garbage = SecureRandom.bytes(length)
            if !garbage.isEmpty { garbage[0] = 1 }
            #expect(throws: (any Error).self) {
                let envelope = try Envelope(serialized: garbage)
                _ = try bobOpens(envelope)
            }
        }
    }

    @Test func randomByteChangesNeverOpen() throws {
        let serialized = try sealFromAliceToBob().serialized
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var mutated = serialized
            let index = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[index] ^= UInt8.random(in: 1...255, using: &generator)
            #expect(throws: (any Error).self) { _ = try bobOpens(try Envelope(serialized: mutated)) }
        }
    }

    @Test func envelopeWithAMissingOrShortSignatureIsRefused() throws {
        var envelope = try sealFromAliceToBob()
        envelope.signature = []
        #expect(throws: WotsError(.badSignature, "")) { try bobOpens(envelope) }
        envelope.signature = [0x01]
        #expect(throws: WotsError(.badSignature, "")) { try bobOpens(envelope) }
    }

    @Test func unusableSenderKeysAreRefusedAsInvalid() throws {
        let envelope = try sealFromAliceToBob()
        let garbageKeys = PublicKeys(signing: [1, 2, 3], encryption: [4, 5, 6])
        #expect(throws: WotsError(.invalidKey, "")) {
            try envelope.open(as: bob.token, identity: bob.identity, senderKeys: garbageKeys)
        }
        #expect(throws: WotsError(.invalidKey, "")) {
            try Envelope.seal(
                plaintext: [1],
                from: alice.token,
                identity: alice.identity,
                to: bob.token,
                recipientKeys: garbageKeys
            )
        }
    }

    @Test func openedMessageDoesNotDescribeItsPlaintext() throws {
        let opened = try bobOpens(try sealFromAliceToBob("the launch code is 0000"))
        #expect(!opened.description.contains("launch"))
        #expect(opened.description.contains(alice.token.description))
    }

    private func resign(_ envelope: Envelope, as signer: TestIdentity) throws -> [UInt8] {
        try signer.identity.signing.signPSS(envelope.signedBytes)
    }
}

@Suite struct EnvelopeVersionTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func aVersion1EnvelopeStillOpensAsText() throws {
        let envelope = try Envelope.seal(
            plaintext: Array("from an older client".utf8),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys,
            version: 1
        )
        #expect(envelope.header.encoded.count == 121)
        let opened = try envelope.open(as: bob.token, identity: bob.identity, senderKeys: alice.publicKeys)
        #expect(try opened.body().content == .text("from an older client"))
    }

    @Test func aVersion1EnvelopeCannotExpire() throws {
        #expect(throws: WotsError(.malformedEnvelope, "")) {
            try Envelope.seal(
                plaintext: [1],
                from: alice.token,
                identity: alice.identity,
                to: bob.token,
                recipientKeys: bob.publicKeys,
                version: 1,
                expiresAfter: .seconds(2)
            )
        }
    }

    @Test func aTimerInTheContentMustMatchTheSignedExpiry() throws {
        let body = try MessageBody(.text("gone soon"), disappearAfter: 2)
        let sealed = try Envelope.seal(
            plaintext: body.encoded(),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys,
            expiresAfter: .seconds(2)
        )
        let opened = try sealed.open(as: bob.token, identity: bob.identity, senderKeys: alice.publicKeys)
        #expect(try opened.body() == body)
        #expect(opened.header.expiresAtMilliseconds == opened.header.sentAtMilliseconds + 2_000)

        let longer = try Envelope.seal(
            plaintext: body.encoded(),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys,
            expiresAfter: .seconds(3)
        )
        let mismatched = try longer.open(as: bob.token, identity: bob.identity, senderKeys: alice.publicKeys)
        #expect(throws: WotsError(.malformed, "")) { try mismatched.body() }
    }
}
