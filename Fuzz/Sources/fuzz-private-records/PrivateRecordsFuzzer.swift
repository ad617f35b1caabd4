import Foundation
import FuzzSupport
import WotsCore
import WotsCrypto

/// What a client opens after `restore` and what the relay stores: the sealed private keys and the private record.
/// The first byte picks what the rest is:
/// - 0: a sealed blob, opened with the fixed keys;
/// - 1: a version byte and a plaintext, sealed here with the fixed keys so the tag verifies and the plaintext parser
///   (length-prefixed PKCS#8 keys, retired keys) is what is fuzzed; what opens must seal and open again the same;
/// - 2: a private record's JSON, which must round-trip and open or refuse cleanly;
/// - 3: the keys of a wrong secret, which must never open a real record and must fail with `wrong_secret`.
enum PrivateRecordsFuzzer {
    static func check(_ bytes: [UInt8]) {
        guard let mode = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        switch mode % 4 {
        case 0:
            _ = Fuzz.wotsErrorOrValue {
                try SealedPrivateKeys(bytes: rest).open(token: Fixture.token, keys: Fixture.keys)
            }
        case 1:
            openSealedPlaintext(rest)
        case 2:
            guard let record = Fuzz.roundTripJSON(PrivateRecord.self, Data(rest)) else { return }
            _ = Fuzz.wotsErrorOrValue { try record.openIdentity(keys: Fixture.keys) }
        default:
            openWithWrongKeys(rest)
        }
    }
}

private func openSealedPlaintext(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let version: UInt8 = first & 1 == 0 ? 1 : 2
    let nonce = [UInt8](repeating: 7, count: 12)
    let aad = Array("wots-private-keys-v\(version)".utf8) + [0] + Fixture.token.bytes
    let sealed = PlainSealer.seal(Array(bytes.dropFirst()), key: Fixture.keys.encryptionKey, nonce: nonce, aad: aad)
    let blob = SealedPrivateKeys(bytes: [version] + nonce + sealed)
    guard let identity = Fuzz.wotsErrorOrValue({ try blob.open(token: Fixture.token, keys: Fixture.keys) }) else {
        return
    }
    let resealed = Fuzz.wotsErrorOrValue {
        try SealedPrivateKeys.seal(identity, token: Fixture.token, keys: Fixture.keys)
    }
    let reopened = Fuzz.wotsErrorOrValue { try resealed?.open(token: Fixture.token, keys: Fixture.keys) }
    Fuzz.require(reopened??.fingerprint == identity.fingerprint, "opened keys do not seal and open again")
    Fuzz.require(
        reopened??.retired.map(\.fingerprint) == identity.retired.map(\.fingerprint),
        "retired keys change when sealed again"
    )
}

private func openWithWrongKeys(_ bytes: [UInt8]) {
    func key(_ part: ArraySlice<UInt8>) -> [UInt8] { Array((part + [UInt8](repeating: 0, count: 32)).prefix(32)) }
    let keys = SecretKeys(encryptionKey: key(bytes.prefix(32)), authenticationKey: key(bytes.dropFirst(32).prefix(32)))
    let record = Fixture.record
    if keys.encryptionKey != Fixture.keys.encryptionKey {
        do {
            _ = try SealedPrivateKeys(bytes: record.sealedPrivateKeys).open(token: record.token, keys: keys)
            Fuzz.require(false, "a wrong encryption key opened the sealed private keys")
        } catch let error as WotsError {
            Fuzz.require(error.code == .wrongSecret, "a wrong key was refused with \(error.code), not wrong_secret")
        } catch {
            Fuzz.require(false, "a wrong key was refused with \(error), not a WotsError")
        }
    }
    if keys.authenticationKey != Fixture.keys.authenticationKey {
        do {
            _ = try record.openIdentity(keys: keys)
            Fuzz.require(false, "a wrong secret opened the private record")
        } catch let error as WotsError {
            Fuzz.require(error.code == .wrongSecret, "a wrong secret was refused with \(error.code), not wrong_secret")
        } catch {
            Fuzz.require(false, "a wrong secret was refused with \(error), not a WotsError")
        }
    }
}
