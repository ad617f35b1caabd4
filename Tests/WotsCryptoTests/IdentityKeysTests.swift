import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@Suite struct IdentityKeysTests {
    static let rsa1024SPKI = Array(
        Data(
            base64Encoded:
                "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDvg8TjNxbdMliH1ZZ1NPgBK2S5/aNSEKODVXAQqmQBl/rjRgcWD+ZwkLPPzOQkleJgOnrW1JjPDXFrsmDKIamZgL7NjeTAmMoypwaE3L3bSTV+eyh8Y4Nhi6Cy2+g3/CRqYYVRGnaHEaypKZnvs6axaK8ey0UZGuyrmntb85A4IwIDAQAB"
        )!
    )
    static let p256SPKI = Array(
        Data(
            base64Encoded:
                "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE0StMf9J0NGLPgvuzahndeACssGUN7xK+UeyfsTyZfKS+9q81bE5caIZwpGmhg13J5s2vMPSPYRO7iccESxaSgQ=="
        )!
    )
    static let p256PKCS8 = Array(
        Data(
            base64Encoded:
                "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSauNuNcIzEwQO6DLCaLka1H2gVq879UAD/z6gg6NmxahRANCAATRK0x/0nQ0Ys+C+7NqGd14AKywZQ3vEr5R7J+xPJl8pL72rzVsTlxohnCkaaGDXcnmza8w9I9hE7uJxwRLFpKB"
        )!
    )
    static let rsa2048Exponent3SPKI = Array(
        Data(
            base64Encoded:
                "MIIBIDANBgkqhkiG9w0BAQEFAAOCAQ0AMIIBCAKCAQEAugjzHS0/9Q0lFzGImgIKazCNGX/LlgikrvzM7wx0NoOkN/L2fbzcmYjYB9I58cIdOH39nrOYeeOwP4XKXQHFzDhkVoE+K/uH8SvrklgzQiXoivWsSX37Z+6MdFj+CTJItwVbbfT35XyZl9gN15N1n1YjboUNDTT7Bfu+Dlz5Cbt27o6ibg9uo0wFsLKeVfSUJQjJbIjPYkdUucAj1nCObl+fA5Olq9Qgxz7SUjUq7pNqjX2V80/PwwjLr66l9M2M9KGC7gAHjS0vS3QbeC3EP0yFmrVZ9cimGdOYGlLcVhdf92oXdks39G3uQesnNvap2ctBYGl9wkA6uMj4Ko7glwIBAw=="
        )!
    )

    @Test func generatedIdentityHasTwoDistinctRSA2048Keys() throws {
        let identity = try IdentityKeys.generate()
        #expect(identity.publicKeys.signing != identity.publicKeys.encryption)
        try identity.publicKeys.validate()
        #expect(identity.fingerprint == identity.publicKeys.fingerprint)
        // The new keys work end to end.
        let bob = TestIdentities.bob
        let envelope = try Envelope.seal(
            plaintext: Array("first words".utf8),
            from: Token.random(),
            identity: identity,
            to: bob.token,
            recipientKeys: bob.publicKeys
        )
        #expect(
            try envelope.open(as: bob.token, identity: bob.identity, senderKeys: identity.publicKeys).text
                == "first words"
        )
    }

    @Test func privateKeysRoundTripThroughPKCS8() throws {
        let alice = TestIdentities.alice.identity
        let restored = try IdentityKeys(
            signingPKCS8DER: try alice.signingPKCS8DER(),
            encryptionPKCS8DER: try alice.encryptionPKCS8DER()
        )
        #expect(restored.publicKeys == alice.publicKeys)
        #expect(restored.fingerprint == alice.fingerprint)
    }

    @Test func fingerprintIsSHA256OfBothKeysSigningFirst() throws {
        let keys = TestIdentities.alice.publicKeys
        #expect(keys.fingerprint.bytes == SHA256.hash(keys.signing + keys.encryption))
        #expect(keys.fingerprint != PublicKeys(signing: keys.encryption, encryption: keys.signing).fingerprint)
        #expect(keys.fingerprint.grouped.split(separator: " ").count == 16)
    }

    @Test func identityDescribesItselfWithoutKeyMaterial() throws {
        let alice = TestIdentities.alice.identity
        #expect(alice.description == "IdentityKeys(RSA-2048 ×2, fingerprint \(alice.fingerprint.grouped), 0 retired)")
        #expect(alice.signingPublicKey.description == "SigningPublicKey(RSA-2048)")
        #expect(alice.encryptionPublicKey.description == "EncryptionPublicKey(RSA-2048)")
    }

    @Test func publicKeysRoundTripThroughSPKI() throws {
        let keys = TestIdentities.carol.publicKeys
        #expect(try SigningPublicKey(spkiDER: keys.signing).spkiDER == keys.signing)
        #expect(try EncryptionPublicKey(spkiDER: keys.encryption).spkiDER == keys.encryption)
        #expect(try keys.signingKey() == TestIdentities.carol.identity.signingPublicKey)
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("garbage", [UInt8](repeating: 0x30, count: 300)),
        ("RSA-1024", rsa1024SPKI),
        ("P-256", p256SPKI),
        ("RSA-2048 with e = 3", rsa2048Exponent3SPKI),
        ("truncated", Array(TestIdentities.alice.publicKeys.signing.dropLast(1))),
        ("trailing byte", TestIdentities.alice.publicKeys.signing + [0]),
        ("private key", TestIdentities.privateKeyDER("alice", "signing")),
    ])
    func unusablePublicKeysAreRefused(_ name: String, _ der: [UInt8]) {
        #expect(throws: WotsError(.invalidKey, ""), "\(name)") { try SigningPublicKey(spkiDER: der) }
        #expect(throws: WotsError(.invalidKey, ""), "\(name)") { try EncryptionPublicKey(spkiDER: der) }
    }

    @Test func everyTruncationOfAPublicKeyIsRefused() {
        let der = TestIdentities.bob.publicKeys.encryption
        for length in 0..<der.count {
            #expect(throws: WotsError(.invalidKey, "")) { try EncryptionPublicKey(spkiDER: Array(der[..<length])) }
        }
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("garbage", SecureRandom.bytes(1_200)),
        ("P-256", p256PKCS8),
        ("public key", TestIdentities.alice.publicKeys.signing),
        ("truncated", Array(TestIdentities.privateKeyDER("alice", "signing").dropLast(7))),
    ])
    func unusablePrivateKeysAreRefused(_ name: String, _ der: [UInt8]) {
        let good = TestIdentities.privateKeyDER("bob", "encryption")
        #expect(throws: WotsError(.invalidKey, ""), "\(name)") {
            try IdentityKeys(signingPKCS8DER: der, encryptionPKCS8DER: good)
        }
    }

    @Test func oneKeyForBothUsesIsRefused() {
        let der = TestIdentities.privateKeyDER("alice", "signing")
        #expect(throws: WotsError(.invalidKey, "")) {
            try IdentityKeys(signingPKCS8DER: der, encryptionPKCS8DER: der)
        }
        let keys = TestIdentities.alice.publicKeys
        #expect(throws: WotsError(.invalidKey, "")) {
            try PublicKeys(signing: keys.signing, encryption: keys.signing).validate()
        }
    }

    @Test func randomTokensAreFreshAndSixteenBytes() {
        let tokens = Set((0..<100).map { _ in Token.random() })
        #expect(tokens.count == 100)
        #expect(tokens.allSatisfy { $0.bytes.count == 16 && $0.description.count == 26 })
    }

    @Test func hashesAndComparesLikeTheStandardSays() {
        #expect(
            SHA256.hash(Array("abc".utf8)) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        )
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(constantTimeEquals([], []))
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }

    @Test func errorsCompareByCodeAndDescribeThemselvesByReason() {
        let error = WotsError(.badSignature, "envelope x signature does not verify")
        #expect(error == WotsError(.badSignature, "other words"))
        #expect(error != WotsError(.notForMe, "envelope x signature does not verify"))
        #expect(error.description == "envelope x signature does not verify")
        #expect(error.code.description == "bad_signature")
    }
}

func hex(_ text: String) -> [UInt8] {
    stride(from: 0, to: text.count, by: 2).map {
        let start = text.index(text.startIndex, offsetBy: $0)
        return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
    }
}
