import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@Suite struct ProofTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory
    let relayID = Array("relay-0123456789abcdef".utf8)
    let nonce = SecureRandom.bytes(32)

    // MARK: - Login

    @Test func loginSignatureVerifiesForThatRelayNonceAndToken() throws {
        let signature = try alice.identity.signAuthentication(relayID: relayID, nonce: nonce, token: alice.token)
        #expect(
            alice.publicKeys.verifyAuthentication(
                signature: signature,
                relayID: relayID,
                nonce: nonce,
                token: alice.token
            )
        )
        #expect(
            alice.identity.signingPublicKey.verifyAuthentication(
                signature: signature,
                relayID: relayID,
                nonce: nonce,
                token: alice.token
            )
        )
    }

    @Test func loginSignatureIsUselessElsewhere() throws {
        let signature = try alice.identity.signAuthentication(relayID: relayID, nonce: nonce, token: alice.token)
        let keys = alice.publicKeys
        #expect(
            !keys.verifyAuthentication(signature: signature, relayID: relayID + [0], nonce: nonce, token: alice.token)
        )
        #expect(
            !keys.verifyAuthentication(
                signature: signature,
                relayID: relayID,
                nonce: SecureRandom.bytes(32),
                token: alice.token
            )
        )
        #expect(!keys.verifyAuthentication(signature: signature, relayID: relayID, nonce: nonce, token: bob.token))
        #expect(
            !mallory.publicKeys.verifyAuthentication(
                signature: signature,
                relayID: relayID,
                nonce: nonce,
                token: alice.token
            )
        )
        #expect(
            !PublicKeys(signing: [1], encryption: [2]).verifyAuthentication(
                signature: signature,
                relayID: relayID,
                nonce: nonce,
                token: alice.token
            )
        )
    }

    @Test func loginLayoutIsLabelRelayNonceToken() throws {
        let bytes = try AuthenticationProof.signedBytes(relayID: [0xAA, 0xBB], nonce: [0xCC], token: alice.token)
        #expect(bytes == Array("wots-auth-v1\0".utf8) + [0, 2, 0xAA, 0xBB, 0, 1, 0xCC] + alice.token.bytes)
        #expect(throws: WotsError(.malformed, "")) {
            try AuthenticationProof.signedBytes(relayID: [], nonce: [1], token: alice.token)
        }
        #expect(throws: WotsError(.malformed, "")) {
            try alice.identity.signAuthentication(
                relayID: relayID,
                nonce: [UInt8](repeating: 0, count: 70_000),
                token: alice.token
            )
        }
    }

    @Test func loginSignatureNeverPassesAsAnEnvelopeSignatureNorTheReverse() throws {
        let envelope = try Envelope.seal(
            plaintext: Array("hi".utf8),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        // An envelope signature offered as a login signature over the same bytes' fields.
        #expect(
            !alice.publicKeys.verifyAuthentication(
                signature: envelope.signature,
                relayID: relayID,
                nonce: nonce,
                token: alice.token
            )
        )
        // A login signature spliced into an envelope.
        var spliced = envelope
        spliced.signature = try alice.identity.signAuthentication(
            relayID: Array(envelope.signedBytes.prefix(100)),
            nonce: nonce,
            token: alice.token
        )
        #expect(throws: WotsError(.badSignature, "")) { try spliced.verifySignature(senderKeys: alice.publicKeys) }
        // Even when the login "relay id" is the envelope's whole signed body, the labels keep them apart.
        let body = Array(
            envelope.signedBytes.dropFirst(Envelope.signatureLabel(version: envelope.header.version).count)
        )
        let asLogin = try alice.identity.signAuthentication(relayID: body, nonce: [0], token: alice.token)
        spliced.signature = asLogin
        #expect(throws: WotsError(.badSignature, "")) { try spliced.verifySignature(senderKeys: alice.publicKeys) }
    }

    // MARK: - Registration

    @Test func registrationProofVerifiesForTheRegisteredValues() throws {
        let signature = try alice.registrationProof(relayID: relayID)
        #expect(
            RegistrationProof.verify(
                signature: signature,
                relayID: relayID,
                token: alice.token,
                nickname: alice.nickname,
                publicKeys: alice.publicKeys
            )
        )
    }

    @Test func registrationProofDoesNotCarryOverToOtherValues() throws {
        let signature = try alice.registrationProof(relayID: relayID)
        #expect(
            !RegistrationProof.verify(
                signature: signature,
                relayID: relayID,
                token: bob.token,
                nickname: alice.nickname,
                publicKeys: alice.publicKeys
            )
        )
        #expect(
            !RegistrationProof.verify(
                signature: signature,
                relayID: relayID,
                token: alice.token,
                nickname: try Nickname("alice2"),
                publicKeys: alice.publicKeys
            )
        )
        // Swapping in mallory's encryption key (to read alice's mail) breaks the proof.
        let swapped = PublicKeys(signing: alice.publicKeys.signing, encryption: mallory.publicKeys.encryption)
        #expect(
            !RegistrationProof.verify(
                signature: signature,
                relayID: relayID,
                token: alice.token,
                nickname: alice.nickname,
                publicKeys: swapped
            )
        )
        #expect(
            !RegistrationProof.verify(
                signature: signature,
                relayID: relayID,
                token: alice.token,
                nickname: alice.nickname,
                publicKeys: PublicKeys(signing: alice.publicKeys.signing, encryption: [1, 2, 3])
            )
        )
    }

    @Test func registeringSomeoneElsesKeysCannotBeProven() throws {
        // Mallory registers alice's public keys under her own name: she cannot sign with alice's key.
        #expect(throws: WotsError(.invalidKey, "")) {
            try RegistrationProof.sign(
                relayID: relayID,
                token: mallory.token,
                nickname: mallory.nickname,
                publicKeys: alice.publicKeys,
                identity: mallory.identity
            )
        }
        let byMallory = try mallory.registrationProof(relayID: relayID)
        #expect(
            !RegistrationProof.verify(
                signature: byMallory,
                relayID: relayID,
                token: mallory.token,
                nickname: mallory.nickname,
                publicKeys: alice.publicKeys
            )
        )
    }

    // MARK: - Rotation

    @Test func rotationNeedsBothTheOldAndTheNewKey() throws {
        let proof = try RotationProof.sign(token: alice.token, oldIdentity: alice.identity, newIdentity: bob.identity)
        #expect(proof.verify(token: alice.token, oldKeys: alice.publicKeys, newKeys: bob.publicKeys))
        #expect(!proof.verify(token: bob.token, oldKeys: alice.publicKeys, newKeys: bob.publicKeys))
        #expect(!proof.verify(token: alice.token, oldKeys: mallory.publicKeys, newKeys: bob.publicKeys))
        #expect(!proof.verify(token: alice.token, oldKeys: alice.publicKeys, newKeys: mallory.publicKeys))

        // Mallory, holding only a new key of her own, cannot take over alice's account.
        let byMallory = try RotationProof.sign(
            token: alice.token,
            oldIdentity: mallory.identity,
            newIdentity: mallory.identity
        )
        #expect(!byMallory.verify(token: alice.token, oldKeys: alice.publicKeys, newKeys: mallory.publicKeys))
        var oldSignatureOnly = proof
        oldSignatureOnly.newKeySignature = byMallory.newKeySignature
        #expect(!oldSignatureOnly.verify(token: alice.token, oldKeys: alice.publicKeys, newKeys: mallory.publicKeys))
    }

    @Test func rotationProofSurvivesJSON() throws {
        let proof = try RotationProof.sign(token: alice.token, oldIdentity: alice.identity, newIdentity: bob.identity)
        let decoded = try JSONDecoder().decode(RotationProof.self, from: try JSONEncoder().encode(proof))
        #expect(decoded == proof)
        #expect(decoded.verify(token: alice.token, oldKeys: alice.publicKeys, newKeys: bob.publicKeys))
    }

    @Test func proofsOfOneKindNeverPassAsAnother() throws {
        let registration = try alice.registrationProof(relayID: relayID)
        let login = try alice.identity.signAuthentication(relayID: relayID, nonce: nonce, token: alice.token)
        #expect(
            !RegistrationProof.verify(
                signature: login,
                relayID: relayID,
                token: alice.token,
                nickname: alice.nickname,
                publicKeys: alice.publicKeys
            )
        )
        #expect(
            !alice.publicKeys.verifyAuthentication(
                signature: registration,
                relayID: relayID,
                nonce: nonce,
                token: alice.token
            )
        )
        let rotation = RotationProof(oldKeySignature: registration, newKeySignature: registration)
        #expect(!rotation.verify(token: alice.token, oldKeys: alice.publicKeys, newKeys: alice.publicKeys))
    }

    // MARK: - Safety number

    @Test func safetyNumberIsTheSameFromBothSides() {
        let ab = SafetyNumber(alice.fingerprint, bob.fingerprint)
        #expect(ab == SafetyNumber(bob.fingerprint, alice.fingerprint))
        #expect(ab == SafetyNumber(bob.publicKeys, alice.publicKeys))
        #expect(ab.groups.count == 12)
        #expect(ab.groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        #expect(ab.digits.count == 60)
        #expect(ab.description.split(separator: " ").count == 12)
    }

    @Test func safetyNumberChangesWhenEitherKeyChanges() {
        let ab = SafetyNumber(alice.fingerprint, bob.fingerprint)
        #expect(ab != SafetyNumber(mallory.fingerprint, bob.fingerprint))
        #expect(ab != SafetyNumber(alice.fingerprint, mallory.fingerprint))
        #expect(ab != SafetyNumber(alice.fingerprint, TestIdentities.carol.fingerprint))
    }
}
