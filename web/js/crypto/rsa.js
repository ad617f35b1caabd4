/**
 * RSA-2048 through WebCrypto with the exact parameters SECURITY.md fixes, none left to a default:
 * RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) for signatures, RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) for
 * wrapping content keys. Public keys from others are accepted only as canonical RSA-2048 SPKI DER with e = 65537.
 */

import { compareBytes, constantTimeEqual } from './bytes.js';
import { CryptoError, CryptoErrorCode } from './errors.js';

export const RSAParameters = Object.freeze({
    modulusLength: 2048,
    publicExponent: Object.freeze([1, 0, 1]),
    hash: 'SHA-256',
    pssSaltLength: 32,
    /** Signatures and OAEP outputs are one modulus long. */
    modulusSize: 256,
});

/** RSA-PSS with SHA-256; WebCrypto uses the same hash for MGF1. */
export const signingAlgorithm = Object.freeze({ name: 'RSA-PSS', hash: 'SHA-256' });
/** RSA-OAEP with SHA-256; WebCrypto uses the same hash for MGF1, and no label unless one is given. */
export const encryptionAlgorithm = Object.freeze({ name: 'RSA-OAEP', hash: 'SHA-256' });

// SEQUENCE { SEQUENCE { OID rsaEncryption, NULL }, BIT STRING { SEQUENCE { INTEGER n(257 bytes), INTEGER e } } }:
// the only canonical DER of an RSA-2048 SubjectPublicKeyInfo starts with these 24 bytes and is 294 bytes long.
const rsa2048SPKIPrefix = Uint8Array.from([
    0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    0x03, 0x82, 0x01, 0x0f, 0x00,
]);
const rsa2048SPKISize = 294;

function invalidKey(reason) {
    return new CryptoError(CryptoErrorCode.invalidKey, reason);
}

/** Refuses anything but a 2048-bit modulus with public exponent 65537. */
export function checkRSAKeyAlgorithm(key, what) {
    const { modulusLength, publicExponent } = key.algorithm;
    if (modulusLength !== RSAParameters.modulusLength) {
        throw invalidKey(`${what} is RSA-${modulusLength} (must be RSA-2048)`);
    }
    const exponent = Array.from(publicExponent).reduce((value, byte) => value * 256 + byte, 0);
    if (exponent !== 65537) throw invalidKey(`${what} has a public exponent other than 65537`);
}

/**
 * Imports a public key given as SPKI DER after checking it is canonical RSA-2048 with e = 65537.
 * @param {Uint8Array} spki DER SubjectPublicKeyInfo
 * @param {'signing' | 'encryption'} use
 * @param {string} what names the key in error reasons
 * @returns {Promise<CryptoKey>} an RSA-PSS verify key or an RSA-OAEP encrypt key
 * @throws {CryptoError} `invalidKey` naming what is wrong
 */
export async function importPublicKey(spki, use, what = `${use} public key`) {
    if (!(spki instanceof Uint8Array) || spki.length !== rsa2048SPKISize) {
        throw invalidKey(`${what} is ${spki?.length ?? 'no'} bytes, not an RSA-2048 SubjectPublicKeyInfo`);
    }
    if (compareBytes(spki.subarray(0, rsa2048SPKIPrefix.length), rsa2048SPKIPrefix) !== 0) {
        throw invalidKey(`${what} is not a DER rsaEncryption SubjectPublicKeyInfo`);
    }
    const [algorithm, usages] = use === 'signing' ? [signingAlgorithm, ['verify']] : [encryptionAlgorithm, ['encrypt']];
    let key;
    try {
        key = await crypto.subtle.importKey('spki', spki, algorithm, true, usages);
    } catch {
        throw invalidKey(`${what} is not a DER SubjectPublicKeyInfo`);
    }
    checkRSAKeyAlgorithm(key, what);
    // Re-encoding must give the same bytes: one key, one spelling, one fingerprint.
    const again = new Uint8Array(await crypto.subtle.exportKey('spki', key));
    if (!constantTimeEqual(again, spki)) throw invalidKey(`${what} is not in canonical DER`);
    return key;
}

/**
 * Signs `message` with RSA-PSS (SHA-256, MGF1-SHA-256, salt 32); the signer hashes, there is no pre-hashing.
 * @returns {Promise<Uint8Array>} 256 bytes
 */
export async function signPSS(privateKey, message) {
    const algorithm = { name: 'RSA-PSS', saltLength: RSAParameters.pssSaltLength };
    return new Uint8Array(await crypto.subtle.sign(algorithm, privateKey, message));
}

/** Whether `signature` is a valid RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) signature of `message`. */
export async function verifyPSS(publicKey, signature, message) {
    if (!(signature instanceof Uint8Array) || signature.length !== RSAParameters.modulusSize) return false;
    const algorithm = { name: 'RSA-PSS', saltLength: RSAParameters.pssSaltLength };
    try {
        return await crypto.subtle.verify(algorithm, publicKey, signature, message);
    } catch {
        return false;
    }
}

/** Encrypts a short secret with RSA-OAEP (SHA-256, MGF1-SHA-256, empty label): 256 bytes. */
export async function encryptOAEP(publicKey, plaintext) {
    return new Uint8Array(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, publicKey, plaintext));
}

/**
 * Decrypts RSA-OAEP (SHA-256, MGF1-SHA-256, empty label).
 * @throws {CryptoError} `decryptionFailed` when the ciphertext was not made for this key
 */
export async function decryptOAEP(privateKey, ciphertext) {
    if (ciphertext.length !== RSAParameters.modulusSize) {
        throw new CryptoError(
            CryptoErrorCode.decryptionFailed,
            `wrapped key is ${ciphertext.length} bytes (must be 256)`,
        );
    }
    try {
        return new Uint8Array(await crypto.subtle.decrypt({ name: 'RSA-OAEP' }, privateKey, ciphertext));
    } catch {
        throw new CryptoError(
            CryptoErrorCode.decryptionFailed,
            'the wrapped content key does not open with this encryption key',
        );
    }
}
