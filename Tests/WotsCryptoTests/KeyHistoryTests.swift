import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsCrypto

/// A rotation keeps the earlier encryption keys, sealed like the current ones, so mail already sealed to them opens.
@Suite struct KeyHistoryTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let parameters = KeyDerivationParameters(salt: [UInt8](repeating: 9, count: 16), )

    /// Bob as he is after rotating to carol's key pairs (pre-generated, so no test spends seconds on RSA).
    var rotatedBob: IdentityKeys { bob.identity.rotated(to: TestIdentities.carol.identity) }

    @Test func mailSealedToTheOldKeyOpensAfterARotation() throws {
        let envelope = try Envelope.seal(
            plaintext: Array("queued before the rotation".utf8),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        let opened = try envelope.open(as: bob.token, identity: self.rotatedBob, senderKeys: alice.publicKeys)
        #expect(opened.plaintext == Array("queued before the rotation".utf8))

        let fresh = try Envelope.seal(
            plaintext: Array("after".utf8),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: self.rotatedBob.publicKeys
        )
        #expect(
            try fresh.open(as: bob.token, identity: self.rotatedBob, senderKeys: alice.publicKeys).plaintext.count == 5
        )
    }

    @Test func mailForAKeyTheAccountNeverHadIsNotForIt() throws {
        let envelope = try Envelope.seal(
            plaintext: Array("for mallory's keys".utf8),
            from: alice.token,
            identity: alice.identity,
            to: bob.token,
            recipientKeys: TestIdentities.mallory.publicKeys
        )
        #expect(throws: WotsError(.notForMe, "")) {
            try envelope.open(as: bob.token, identity: self.rotatedBob, senderKeys: alice.publicKeys)
        }
    }

    @Test func retiredKeysSurviveSealingAndOpeningTheRecord() throws {
        let keys = try SecretKeys.derive(secret: "bob's secret", parameters: parameters)
        let sealed = try SealedPrivateKeys.seal(self.rotatedBob, token: bob.token, keys: keys)
        #expect(sealed.bytes.first == 2)
        let opened = try sealed.open(token: bob.token, keys: keys)
        #expect(opened.fingerprint == TestIdentities.carol.fingerprint)
        #expect(opened.retired.map(\.fingerprint) == [bob.fingerprint])
    }

    @Test func aRecordSealedInVersionOneStillOpens() throws {
        let keys = try SecretKeys.derive(secret: "bob's secret", parameters: parameters)
        var plaintext = ByteWriterForTests()
        plaintext.prefixed(try bob.identity.signingPKCS8DER())
        plaintext.prefixed(try bob.identity.encryptionPKCS8DER())
        let nonce = [UInt8](repeating: 3, count: 12)
        let sealed = try AESGCM.seal(
            plaintext.bytes,
            key: keys.encryptionKey,
            nonce: nonce,
            aad: Array("wots-private-keys-v1".utf8) + [0] + bob.token.bytes
        )
        let opened = try SealedPrivateKeys(bytes: [1] + nonce + sealed).open(token: bob.token, keys: keys)
        #expect(opened.fingerprint == bob.fingerprint)
        #expect(opened.retired.isEmpty)
    }

    @Test func onlyTheNewestRetiredKeysAreKept() {
        var identity = bob.identity
        for step in 0..<(RetiredEncryptionKey.maximumCount + 3) {
            identity = identity.rotated(to: step.isMultiple(of: 2) ? TestIdentities.carol.identity : bob.identity)
        }
        #expect(identity.retired.count == RetiredEncryptionKey.maximumCount)
    }
}

/// The length-prefixed layout of SECURITY.md, written independently of the code under test.
struct ByteWriterForTests {
    var bytes: [UInt8] = []

    mutating func prefixed(_ field: [UInt8]) {
        self.bytes += [UInt8(field.count >> 8), UInt8(field.count & 0xFF)] + field
    }
}
