import Testing
import WotsCore
import WotsCrypto

@Suite struct Ed25519Tests {
    /// RFC 8032 section 7.1, tests 1 and 2: (secret key, public key, message, signature), in hex.
    static let rfc8032: [(String, String, String, String)] = [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f059"
                + "5bbe24655141438e7a100b"
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eae"
                + "b4302aeeb00d291612bb0c00"
        ),
    ]

    @Test(arguments: 0..<2)
    func rfc8032VectorsSignAndVerify(_ number: Int) throws {
        let (seed, publicKey, message, signature) = Self.rfc8032[number]
        let key = try Ed25519PrivateKey(seed: try #require(Hex.decode(seed)))
        #expect(key.publicKey.rawRepresentation == Hex.decode(publicKey))
        let made = try key.signature(for: try #require(Hex.decode(message)))
        #expect(Hex.encode(made) == signature)
        let parsed = try Ed25519PublicKey(rawRepresentation: try #require(Hex.decode(publicKey)))
        #expect(parsed.isValidSignature(made, for: try #require(Hex.decode(message))))
        #expect(try key.withSeed { Hex.encode($0) } == seed)
    }

    @Test func generatedKeysSignDeterministicallyAndRoundTripTheirSeed() throws {
        let key = try Ed25519PrivateKey.generate()
        let message = Array("checkpoint".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(try key.signature(for: message) == signature)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        let restored = try key.withSeed { try Ed25519PrivateKey(seed: $0) }
        #expect(restored.publicKey == key.publicKey)
        #expect(try restored.signature(for: message) == signature)
    }

    @Test func tamperedSignaturesMessagesAndKeysDoNotVerify() throws {
        let key = try Ed25519PrivateKey.generate()
        let message = Array("checkpoint".utf8)
        let signature = try key.signature(for: message)
        for bit in [0, 7, 100, 511] {
            var flipped = signature
            flipped[bit / 8] ^= 1 << (bit % 8)
            #expect(!key.publicKey.isValidSignature(flipped, for: message))
        }
        #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
        #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: message))
        #expect(!key.publicKey.isValidSignature([], for: message))
        #expect(!(try Ed25519PrivateKey.generate()).publicKey.isValidSignature(signature, for: message))
        // A failed verification must not leave an error behind for the next OpenSSL call to report.
        #expect(try key.signature(for: message) == signature)
    }

    @Test func wrongLengthsAreRefusedAsInvalidKeys() {
        #expect(throws: WotsError(.invalidKey, "")) { try Ed25519PrivateKey(seed: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: WotsError(.invalidKey, "")) { try Ed25519PublicKey(rawRepresentation: []) }
        #expect(throws: WotsError(.invalidKey, "")) {
            try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 33))
        }
    }

    @Test func descriptionsShowNoSecret() throws {
        let seed = [UInt8](repeating: 0xAB, count: 32)
        let key = try Ed25519PrivateKey(seed: seed)
        #expect(!key.description.contains("abab"))
        #expect(key.description.hasPrefix("Ed25519PrivateKey("))
    }
}
