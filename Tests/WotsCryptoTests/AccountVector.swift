import Foundation
import WotsCore

/// The layout of `schema/vectors/account-v1.json`: known answers for everything an account derives, seals and signs
/// (SECURITY.md). Byte strings are standard base64 with padding, tokens base32 text, fingerprints lowercase hex.
struct AccountVector: Codable {
    struct KeyDerivation: Codable {
        var name: String
        /// As typed; may need NFC normalisation.
        var secret: String
        /// UTF-8 of the secret's NFC form: the scrypt password.
        var secretUTF8: Data
        var salt: Data
        var n: UInt64
        var r: UInt32
        var p: UInt32
        var encryptionKey: Data
        var authenticationKey: Data
        var restoreKeySeed: Data
        var secretVerifier: Data
    }

    struct Identity: Codable {
        var token: Token
        var nickname: String
        var signingPrivateKey: Data
        var encryptionPrivateKey: Data
        var publicKeys: PublicKeys
        var fingerprint: Fingerprint
    }

    struct RetiredKey: Codable {
        var fingerprint: Fingerprint
        var encryptionPrivateKey: Data
    }

    struct SealedKeys: Codable {
        var token: Token
        var encryptionKey: Data
        var nonce: Data
        var signingPrivateKey: Data
        var encryptionPrivateKey: Data
        var retired: [RetiredKey]
        var sealed: Data
    }

    struct Registration: Codable {
        var relayID: Data
        var token: Token
        var nickname: String
        var publicKeys: PublicKeys
        var signedBytes: Data
        var signature: Data
    }

    /// A login or deletion: RSA-PSS by the identity's signing key over a challenge naming the token.
    struct TokenChallenge: Codable {
        var relayID: Data
        var nonce: Data
        var token: Token
        var signedBytes: Data
        var signature: Data
    }

    struct Restore: Codable {
        var relayID: Data
        var nonce: Data
        var nickname: String
        var authenticationKey: Data
        var secretVerifier: Data
        var signedBytes: Data
        var signature: Data
    }

    var description: String
    var keyDerivation: [KeyDerivation]
    var identity: Identity
    var sealedPrivateKeys: SealedKeys
    var registration: Registration
    var login: TokenChallenge
    var restore: Restore
    var deletion: TokenChallenge
}
