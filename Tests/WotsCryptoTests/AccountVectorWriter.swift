import Foundation
import WotsCore
import WotsTesting

@testable import WotsCrypto

/// Makes `schema/vectors/account-v1.json` from fixed inputs (run `KnownAnswerVectorTests/writeVector` with
/// `WOTS_WRITE_VECTORS=1`). Every input is a published test value: never use these keys or secrets.
enum AccountVectorWriter {
    static let description = """
        Wots account known-answer vectors v1 (SECURITY.md: "The secret, key storage and restore", "Registration", \
        "Login"). TEST VALUES ONLY: the secrets, salts and private keys are published; never use them. Encoding: \
        byte strings are standard base64 with padding; tokens are 26-character base32 text (16 raw bytes in every \
        layout); fingerprints are 64 lowercase hex digits. keyDerivation: scrypt(password = secretUTF8, the UTF-8 of \
        the NFC form of secret; salt; N = n; r; p; 64 bytes) = encryptionKey || authenticationKey; restoreKeySeed = \
        SHA-256("wots-restore-key-v1" 0x00 || authenticationKey); secretVerifier = its Ed25519 public key. \
        sealedPrivateKeys: version 2, sealed with keyDerivation[0]'s encryptionKey and the fixed nonce (a real \
        sealing draws a fresh one). registration, login, deletion: RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) \
        signatures by identity's signing key over signedBytes (randomised: verify them, do not expect the same \
        bytes). restore: the Ed25519 signature by the restore key of keyDerivation[0] over signedBytes \
        (deterministic: recompute it).
        """

    static func bytes(_ label: String, count: Int) -> [UInt8] {
        Array(SHA256.hash(Array("wots known-answer vector v1: \(label)".utf8)).prefix(count))
    }

    static func keyDerivation(name: String, secret: String, saltLabel: String) throws -> AccountVector.KeyDerivation {
        let parameters = KeyDerivationParameters(salt: Self.bytes(saltLabel, count: 16))
        let keys = try SecretKeys.derive(secret: secret, parameters: parameters)
        return AccountVector.KeyDerivation(
            name: name,
            secret: secret,
            secretUTF8: Data(secret.precomposedStringWithCanonicalMapping.utf8),
            salt: Data(parameters.salt),
            n: parameters.n,
            r: parameters.r,
            p: parameters.p,
            encryptionKey: Data(keys.encryptionKey),
            authenticationKey: Data(keys.authenticationKey),
            restoreKeySeed: Data(SHA256.hash(SecretKeys.restoreKeyLabel + keys.authenticationKey)),
            secretVerifier: Data(try keys.secretVerifier())
        )
    }

    static func make() throws -> AccountVector {
        let alice = TestIdentities.alice
        let carol = TestIdentities.carol
        let derivations = [
            try Self.keyDerivation(name: "ASCII secret", secret: "correct horse battery staple", saltLabel: "salt 1"),
            try Self.keyDerivation(
                name: "non-ASCII secret in NFD: the decomposed e + U+0301 becomes U+00E9 before scrypt",
                secret: "Cafe\u{301} cre\u{300}me bru\u{302}le\u{301}e, 秘密の合言葉 🔑",
                saltLabel: "salt 2"
            ),
        ]
        let keys = SecretKeys(
            encryptionKey: Array(derivations[0].encryptionKey),
            authenticationKey: Array(derivations[0].authenticationKey)
        )
        let retired = try RetiredEncryptionKey(
            fingerprint: carol.fingerprint,
            pkcs8DER: try carol.identity.encryptionPKCS8DER()
        )
        let identity = try IdentityKeys(
            signingPKCS8DER: try alice.identity.signingPKCS8DER(),
            encryptionPKCS8DER: try alice.identity.encryptionPKCS8DER(),
            retired: [retired]
        )
        let nonce = Self.bytes("seal nonce", count: 12)
        let sealed = try SealedPrivateKeys.seal(identity, token: alice.token, keys: keys, nonce: nonce)
        let relayID = Self.bytes("relay id", count: 16)
        let loginNonce = Self.bytes("login nonce", count: 32)
        let restoreNonce = Self.bytes("restore nonce", count: 32)
        let deletionNonce = Self.bytes("deletion nonce", count: 32)
        let loginBytes = try AuthenticationProof.signedBytes(relayID: relayID, nonce: loginNonce, token: alice.token)
        let deletionBytes = try DeletionProof.signedBytes(relayID: relayID, nonce: deletionNonce, token: alice.token)
        let restoreBytes = try RestoreProof.signedBytes(relayID: relayID, nonce: restoreNonce, nickname: alice.nickname)
        return AccountVector(
            description: Self.description,
            keyDerivation: derivations,
            identity: AccountVector.Identity(
                token: alice.token,
                nickname: alice.nickname.value,
                signingPrivateKey: Data(try alice.identity.signingPKCS8DER()),
                encryptionPrivateKey: Data(try alice.identity.encryptionPKCS8DER()),
                publicKeys: alice.publicKeys,
                fingerprint: alice.fingerprint
            ),
            sealedPrivateKeys: AccountVector.SealedKeys(
                token: alice.token,
                encryptionKey: Data(keys.encryptionKey),
                nonce: Data(nonce),
                signingPrivateKey: Data(try identity.signingPKCS8DER()),
                encryptionPrivateKey: Data(try identity.encryptionPKCS8DER()),
                retired: [
                    AccountVector.RetiredKey(
                        fingerprint: carol.fingerprint,
                        encryptionPrivateKey: Data(try retired.pkcs8DER())
                    )
                ],
                sealed: Data(sealed.bytes)
            ),
            registration: AccountVector.Registration(
                relayID: Data(relayID),
                token: alice.token,
                nickname: alice.nickname.value,
                publicKeys: alice.publicKeys,
                signedBytes: Data(
                    try RegistrationProof.signedBytes(
                        relayID: relayID,
                        token: alice.token,
                        nickname: alice.nickname,
                        publicKeys: alice.publicKeys
                    )
                ),
                signature: Data(try alice.registrationProof(relayID: relayID))
            ),
            login: AccountVector.TokenChallenge(
                relayID: Data(relayID),
                nonce: Data(loginNonce),
                token: alice.token,
                signedBytes: Data(loginBytes),
                signature: Data(
                    try alice.identity.signAuthentication(relayID: relayID, nonce: loginNonce, token: alice.token)
                )
            ),
            restore: AccountVector.Restore(
                relayID: Data(relayID),
                nonce: Data(restoreNonce),
                nickname: alice.nickname.value,
                authenticationKey: Data(keys.authenticationKey),
                secretVerifier: Data(try keys.secretVerifier()),
                signedBytes: Data(restoreBytes),
                signature: Data(try keys.signRestore(relayID: relayID, nonce: restoreNonce, nickname: alice.nickname))
            ),
            deletion: AccountVector.TokenChallenge(
                relayID: Data(relayID),
                nonce: Data(deletionNonce),
                token: alice.token,
                signedBytes: Data(deletionBytes),
                signature: Data(
                    try alice.identity.signDeletion(relayID: relayID, nonce: deletionNonce, token: alice.token)
                )
            )
        )
    }

    static func encoded(_ vector: AccountVector) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(vector)
    }
}
