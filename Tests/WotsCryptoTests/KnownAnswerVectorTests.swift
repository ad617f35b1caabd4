import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsCrypto

/// The known answers in `schema/vectors/account-v1.json`, recomputed with the Swift code. `scripts/check_interop.py`
/// recomputes the same values from SECURITY.md alone with Python's `cryptography`, so the two implementations and the
/// document agree byte for byte.
@Suite struct KnownAnswerVectorTests {
    static let vectorURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema/vectors/account-v1.json")

    static func load() throws -> AccountVector {
        try JSONDecoder().decode(AccountVector.self, from: try Data(contentsOf: Self.vectorURL))
    }

    @Test func keyDerivationGivesThePublishedKeys() throws {
        let vector = try Self.load()
        #expect(vector.keyDerivation.count == 2)
        for known in vector.keyDerivation {
            #expect(Array(known.secret.precomposedStringWithCanonicalMapping.utf8) == Array(known.secretUTF8))
            let keys = try SecretKeys.derive(
                secret: known.secret,
                parameters: KeyDerivationParameters(salt: Array(known.salt), n: known.n, r: known.r, p: known.p)
            )
            #expect(keys.encryptionKey == Array(known.encryptionKey), "\(known.name)")
            #expect(keys.authenticationKey == Array(known.authenticationKey), "\(known.name)")
            #expect(SHA256.hash(SecretKeys.restoreKeyLabel + keys.authenticationKey) == Array(known.restoreKeySeed))
            try keys.restoreKey().withSeed { #expect($0 == Array(known.restoreKeySeed)) }
            #expect(try keys.secretVerifier() == Array(known.secretVerifier), "\(known.name)")
        }
    }

    @Test func aNonASCIISecretIsNormalisedToNFCBeforeScrypt() throws {
        let vector = try Self.load()
        let composed = try #require(vector.keyDerivation.first { $0.secret.unicodeScalars.contains { !$0.isASCII } })
        #expect(Array(composed.secret.utf8) != Array(composed.secretUTF8), "the vector's secret is already NFC")
        let decomposed = composed.secret.decomposedStringWithCanonicalMapping
        let parameters = KeyDerivationParameters(salt: Array(composed.salt))
        #expect(
            try SecretKeys.derive(secret: decomposed, parameters: parameters).encryptionKey
                == Array(composed.encryptionKey)
        )
    }

    @Test func sealedPrivateKeysAreThePublishedBytesAndOpen() throws {
        let vector = try Self.load()
        let known = vector.sealedPrivateKeys
        #expect(known.encryptionKey == vector.keyDerivation[0].encryptionKey)
        let keys = SecretKeys(
            encryptionKey: Array(known.encryptionKey),
            authenticationKey: Array(vector.keyDerivation[0].authenticationKey)
        )
        let identity = try IdentityKeys(
            signingPKCS8DER: Array(known.signingPrivateKey),
            encryptionPKCS8DER: Array(known.encryptionPrivateKey),
            retired: try known.retired.map {
                try RetiredEncryptionKey(fingerprint: $0.fingerprint, pkcs8DER: Array($0.encryptionPrivateKey))
            }
        )
        let sealed = try SealedPrivateKeys.seal(identity, token: known.token, keys: keys, nonce: Array(known.nonce))
        #expect(sealed.bytes == Array(known.sealed))

        let opened = try SealedPrivateKeys(bytes: Array(known.sealed)).open(token: known.token, keys: keys)
        #expect(try opened.signingPKCS8DER() == Array(known.signingPrivateKey))
        #expect(try opened.encryptionPKCS8DER() == Array(known.encryptionPrivateKey))
        #expect(opened.retired.map(\.fingerprint) == known.retired.map(\.fingerprint))
        #expect(try opened.retired.map { try $0.pkcs8DER() } == known.retired.map { Array($0.encryptionPrivateKey) })
        #expect(opened.publicKeys == vector.identity.publicKeys)
        #expect(opened.fingerprint == vector.identity.fingerprint)
    }

    @Test func registrationProofSignsThePublishedBytes() throws {
        let known = try Self.load().registration
        let nickname = try Nickname(known.nickname)
        let bytes = try RegistrationProof.signedBytes(
            relayID: Array(known.relayID),
            token: known.token,
            nickname: nickname,
            publicKeys: known.publicKeys
        )
        #expect(bytes == Array(known.signedBytes))
        #expect(
            RegistrationProof.verify(
                signature: Array(known.signature),
                relayID: Array(known.relayID),
                token: known.token,
                nickname: nickname,
                publicKeys: known.publicKeys
            )
        )
        var otherRelay = Array(known.relayID)
        otherRelay[0] ^= 1
        #expect(
            !RegistrationProof.verify(
                signature: Array(known.signature),
                relayID: otherRelay,
                token: known.token,
                nickname: nickname,
                publicKeys: known.publicKeys
            )
        )
    }

    @Test func loginAndDeletionSignThePublishedBytes() throws {
        let vector = try Self.load()
        let keys = vector.identity.publicKeys
        let login = vector.login
        #expect(
            try AuthenticationProof.signedBytes(
                relayID: Array(login.relayID),
                nonce: Array(login.nonce),
                token: login.token
            )
                == Array(login.signedBytes)
        )
        #expect(
            keys.verifyAuthentication(
                signature: Array(login.signature),
                relayID: Array(login.relayID),
                nonce: Array(login.nonce),
                token: login.token
            )
        )
        let deletion = vector.deletion
        #expect(
            try DeletionProof.signedBytes(
                relayID: Array(deletion.relayID),
                nonce: Array(deletion.nonce),
                token: deletion.token
            ) == Array(deletion.signedBytes)
        )
        #expect(
            keys.verifyDeletion(
                signature: Array(deletion.signature),
                relayID: Array(deletion.relayID),
                nonce: Array(deletion.nonce),
                token: deletion.token
            )
        )
        #expect(
            !keys.verifyDeletion(
                signature: Array(login.signature),
                relayID: Array(login.relayID),
                nonce: Array(login.nonce),
                token: login.token
            ),
            "a login signature passed as a deletion"
        )
    }

    @Test func restoreSignatureIsThePublishedDeterministicEd25519Signature() throws {
        let known = try Self.load().restore
        let nickname = try Nickname(known.nickname)
        #expect(
            try RestoreProof.signedBytes(relayID: Array(known.relayID), nonce: Array(known.nonce), nickname: nickname)
                == Array(known.signedBytes)
        )
        let keys = SecretKeys(encryptionKey: [], authenticationKey: Array(known.authenticationKey))
        #expect(try keys.secretVerifier() == Array(known.secretVerifier))
        let signature = try keys.signRestore(
            relayID: Array(known.relayID),
            nonce: Array(known.nonce),
            nickname: nickname
        )
        #expect(signature == Array(known.signature))
        #expect(
            RestoreProof.verify(
                signature: Array(known.signature),
                secretVerifier: Array(known.secretVerifier),
                relayID: Array(known.relayID),
                nonce: Array(known.nonce),
                nickname: nickname
            )
        )
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["WOTS_WRITE_VECTORS"] == "1"))
    func writeVector() throws {
        try (AccountVectorWriter.encoded(try AccountVectorWriter.make()) + Data("\n".utf8)).write(to: Self.vectorURL)
    }
}
