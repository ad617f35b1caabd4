import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@Suite struct SecretTests {
    let alice = TestIdentities.alice
    let parameters = KeyDerivationParameters(salt: [UInt8](repeating: 7, count: 16))

    @Test func sameSecretAndParametersDeriveTheSameKeys() throws {
        let first = try SecretKeys.derive(secret: "correct horse", parameters: parameters)
        let second = try SecretKeys.derive(secret: "correct horse", parameters: parameters)
        #expect(first.encryptionKey == second.encryptionKey)
        #expect(first.authenticationKey == second.authenticationKey)
        #expect(first.encryptionKey.count == 32 && first.authenticationKey.count == 32)
    }

    @Test func derivedKeysAreIndependentOfEachOther() throws {
        let keys = try SecretKeys.derive(secret: "correct horse", parameters: parameters)
        #expect(keys.encryptionKey != keys.authenticationKey)
        let verifier = try keys.secretVerifier()
        #expect(verifier != keys.authenticationKey)
        #expect(verifier.count == 32)
        let seed = SHA256.hash(Array("wots-restore-key-v1\0".utf8) + keys.authenticationKey)
        #expect(verifier == (try Ed25519PrivateKey(seed: seed).publicKey.rawRepresentation))
    }

    @Test func derivationIsScryptAsSpecified() throws {
        // Expected bytes from Python: hashlib.scrypt(b"password", salt=b"NaClNaClNaClNaCl", n=32768, r=8, p=1,
        // dklen=64). (RFC 7914's own vectors use a 4-byte salt or a cost outside the bounds this API accepts.)
        let keys = try SecretKeys.derive(
            secret: "password",
            parameters: KeyDerivationParameters(salt: Array("NaClNaClNaClNaCl".utf8), n: 32768, r: 8, p: 1)
        )
        #expect(
            keys.encryptionKey + keys.authenticationKey
                == hex(
                    "921d16c5750d18c3d4873fa884185d90c1276099f73c0a36d435e4345c3ff232"
                        + "136267c7e1a2dfa8e8d3653b9215d5dea94792fd32c374f02255904224a6d81b"
                )
        )
    }

    @Test func anotherSecretSaltOrCostDerivesOtherKeys() throws {
        let base = try SecretKeys.derive(secret: "correct horse", parameters: parameters)
        var otherSalt = parameters
        otherSalt.salt[0] ^= 1
        var otherCost = parameters
        otherCost.r = 9
        for keys in [
            try SecretKeys.derive(secret: "correct horsf", parameters: parameters),
            try SecretKeys.derive(secret: "correct horse", parameters: otherSalt),
            try SecretKeys.derive(secret: "correct horse", parameters: otherCost),
        ] {
            #expect(keys.encryptionKey != base.encryptionKey)
            #expect(keys.authenticationKey != base.authenticationKey)
        }
    }

    @Test func canonicallyEquivalentSecretsDeriveTheSameKeys() throws {
        let composed = try SecretKeys.derive(secret: "caf\u{E9}", parameters: parameters)
        let decomposed = try SecretKeys.derive(secret: "cafe\u{301}", parameters: parameters)
        #expect(composed.encryptionKey == decomposed.encryptionKey)
    }

    /// A hostile relay serving cheap parameters gets nothing derived: the floors hold in the client itself.
    @Test(arguments: [
        KeyDerivationParameters(salt: [1, 2, 3]),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 2, r: 1, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1 << 14, r: 8, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1 << 15, r: 7, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1000, r: 8, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 0, r: 8, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1 << 40, r: 8, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1 << 20, r: 32, p: 1),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1 << 15, r: 8, p: 0),
        KeyDerivationParameters(salt: [UInt8](repeating: 1, count: 16), n: 1 << 15, r: 8, p: 1_000),
    ])
    func weakHostileOrBrokenParametersAreRefused(_ parameters: KeyDerivationParameters) {
        #expect(throws: WotsError(.invalidKeyDerivation, "")) {
            try SecretKeys.derive(secret: "x", parameters: parameters)
        }
    }

    @Test func randomParametersHaveAFreshSaltAndTheDefaultCost() {
        let first = KeyDerivationParameters.random()
        #expect(first.salt.count == 16)
        #expect(first.salt != KeyDerivationParameters.random().salt)
        #expect(first.n == 1 << 15 && first.r == 8 && first.p == 1)
    }

    @Test func secretKeysDoNotDescribeTheirBytes() throws {
        let keys = try SecretKeys.derive(secret: "correct horse", parameters: parameters)
        #expect(keys.description == "SecretKeys(2 × 256 bits)")
    }

    // MARK: - Private record

    @Test func privateRecordOpensWithTheRightSecret() throws {
        let record = try alice.privateRecord(avatar: .preset(.tiger))
        let opened = try record.openIdentity(secret: alice.secret)
        #expect(opened.publicKeys == alice.publicKeys)
        #expect(record.token == alice.token)
        #expect(record.avatar == .preset(.tiger))
        let keys = try SecretKeys.derive(secret: alice.secret, parameters: record.keyDerivation)
        #expect(record.verifies(authenticationKey: keys.authenticationKey))
        #expect(record.secretVerifier == (try keys.secretVerifier()))
    }

    @Test func privateRecordRefusesAWrongSecret() throws {
        let record = try alice.privateRecord()
        #expect(throws: WotsError(.wrongSecret, "")) { try record.openIdentity(secret: "not alice's secret") }
        let wrong = try SecretKeys.derive(secret: "not alice's secret", parameters: record.keyDerivation)
        #expect(!record.verifies(authenticationKey: wrong.authenticationKey))
        #expect(!record.verifies(authenticationKey: []))
    }

    @Test func privateRecordSurvivesJSON() throws {
        let record = try alice.privateRecord()
        let decoded = try JSONDecoder().decode(PrivateRecord.self, from: try JSONEncoder().encode(record))
        #expect(try decoded.openIdentity(secret: alice.secret).fingerprint == alice.fingerprint)
    }

    @Test func sealedKeysMovedToAnotherAccountDoNotOpen() throws {
        let keys = try SecretKeys.derive(secret: alice.secret, parameters: parameters)
        let sealed = try SealedPrivateKeys.seal(alice.identity, token: alice.token, keys: keys)
        #expect(try sealed.open(token: alice.token, keys: keys).fingerprint == alice.fingerprint)
        #expect(throws: WotsError(.wrongSecret, "")) { try sealed.open(token: TestIdentities.bob.token, keys: keys) }
    }

    @Test func sealedKeysWithTheRightVerifierButAChangedBlobDoNotOpen() throws {
        var record = try alice.privateRecord()
        record.sealedPrivateKeys[40] ^= 0x01
        #expect(throws: WotsError(.wrongSecret, "")) { try record.openIdentity(secret: alice.secret) }
    }

    @Test func truncatedOrGarbageSealedKeysAreRefused() throws {
        let keys = try SecretKeys.derive(secret: alice.secret, parameters: parameters)
        let sealed = try SealedPrivateKeys.seal(alice.identity, token: alice.token, keys: keys).bytes
        for length in [0, 1, 12, 28, 29, 100, sealed.count - 1] {
            #expect(throws: WotsError.self) {
                try SealedPrivateKeys(bytes: Array(sealed[..<length])).open(token: alice.token, keys: keys)
            }
        }
        #expect(throws: WotsError(.unsupportedVersion, "")) {
            try SealedPrivateKeys(bytes: [3] + sealed.dropFirst()).open(token: alice.token, keys: keys)
        }
        #expect(throws: WotsError(.wrongSecret, ""), "a version-2 blob relabelled as version 1 fails its tag") {
            try SealedPrivateKeys(bytes: [1] + sealed.dropFirst()).open(token: alice.token, keys: keys)
        }
        #expect(throws: WotsError(.wrongSecret, "")) {
            try SealedPrivateKeys(bytes: [1] + SecureRandom.bytes(3_000)).open(token: alice.token, keys: keys)
        }
    }

    @Test func sealingTwiceGivesDifferentBlobs() throws {
        let keys = try SecretKeys.derive(secret: alice.secret, parameters: parameters)
        let first = try SealedPrivateKeys.seal(alice.identity, token: alice.token, keys: keys)
        let second = try SealedPrivateKeys.seal(alice.identity, token: alice.token, keys: keys)
        #expect(first != second)
    }

    @Test func resealingWithDerivedKeysKeepsTheSecretSaltAndVerifier() throws {
        let old = try alice.privateRecord()
        let keys = try SecretKeys.derive(secret: alice.secret, parameters: old.keyDerivation)
        let bob = TestIdentities.bob.identity
        let resealed = try PrivateRecord.seal(
            identity: bob,
            token: alice.token,
            keys: keys,
            parameters: old.keyDerivation
        )
        #expect(resealed.keyDerivation == old.keyDerivation)
        #expect(resealed.secretVerifier == old.secretVerifier)
        #expect(try resealed.openIdentity(secret: alice.secret).fingerprint == bob.fingerprint)
        #expect(throws: WotsError(.wrongSecret, "")) { try resealed.openIdentity(secret: "another secret") }
    }
}
