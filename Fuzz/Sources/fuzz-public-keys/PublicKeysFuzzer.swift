import FuzzSupport
import WotsCore
import WotsCrypto

/// Public keys as a registration, a rotation or the directory carries them (RSA-2048 SPKI DER, parsed by OpenSSL),
/// and a signature over them: `u16 length || signing key || u16 length || encryption key || signature`. Keys refuse
/// with a `WotsError` or parse from canonical DER only; verification answers true or false.
enum PublicKeysFuzzer {
    static func check(_ bytes: [UInt8]) {
        var rest = bytes[...]
        let signing = Self.lengthPrefixed(&rest)
        let encryption = Self.lengthPrefixed(&rest)
        let keys = PublicKeys(signing: signing, encryption: encryption)
        if let key = Fuzz.wotsErrorOrValue({ try SigningPublicKey(spkiDER: signing) }) {
            Fuzz.require(key.spkiDER == signing, "a signing key parsed from non-canonical DER")
        }
        if let key = Fuzz.wotsErrorOrValue({ try EncryptionPublicKey(spkiDER: encryption) }) {
            Fuzz.require(key.spkiDER == encryption, "an encryption key parsed from non-canonical DER")
        }
        if Fuzz.wotsErrorOrValue({ try keys.validate() }) != nil {
            Fuzz.require(keys.signing != keys.encryption, "one key accepted as both signing and encryption key")
            Fuzz.require(keys.fingerprint.bytes.count == Fingerprint.byteCount, "a fingerprint of the wrong size")
        }
        _ = RegistrationProof.verify(
            signature: Array(rest),
            relayID: Array("fuzz-relay".utf8),
            token: token,
            nickname: nickname,
            publicKeys: keys
        )
    }

    private static func lengthPrefixed(_ bytes: inout ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.count >= 2 else { return [] }
        let count = Int(bytes[bytes.startIndex]) << 8 | Int(bytes[bytes.startIndex + 1])
        let value = bytes.dropFirst(2).prefix(count)
        bytes = bytes.dropFirst(2 + value.count)
        return Array(value)
    }
}

private let token = try! Token("zijosdxwlrzlbou3pc4us3bmii")
private let nickname = try! Nickname("alice")
