/**
 * Ed25519 (RFC 8032, pure) through WebCrypto, for the restore key (SECURITY.md "The secret, key storage and
 * restore"). WebCrypto imports a private key only as PKCS#8 or JWK, so a 32-byte seed is wrapped in the fixed
 * 16-byte PKCS#8 prefix of an Ed25519 key.
 */

import { concatBytes, fromBase64URL, wipe } from './bytes.js';
import { CryptoError, CryptoErrorCode } from './errors.js';

export const ed25519 = Object.freeze({ name: 'Ed25519' });
export const ed25519SeedSize = 32;
export const ed25519PublicKeySize = 32;
export const ed25519SignatureSize = 64;

// SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING (32 bytes) } }
const pkcs8SeedPrefix = Uint8Array.from([
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/**
 * The private key of a 32-byte seed, and its 32-byte public key.
 * @param {Uint8Array} seed
 * @returns {Promise<{privateKey: CryptoKey, publicKey: Uint8Array}>} `privateKey` is not extractable
 * @throws {CryptoError} `crypto_library` when WebCrypto has no Ed25519
 */
export async function ed25519KeyFromSeed(seed) {
    if (!(seed instanceof Uint8Array) || seed.length !== ed25519SeedSize) {
        throw new CryptoError(CryptoErrorCode.malformed, `an Ed25519 seed is ${ed25519SeedSize} bytes`);
    }
    const pkcs8 = concatBytes(pkcs8SeedPrefix, seed);
    try {
        // The public key comes from a JWK export (its `x`); that extractable copy lives only in this function.
        const exportable = await crypto.subtle.importKey('pkcs8', pkcs8, ed25519, true, ['sign']);
        const jwk = await crypto.subtle.exportKey('jwk', exportable);
        const publicKey = fromBase64URL(jwk.x);
        const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, ed25519, false, ['sign']);
        if (publicKey === null || publicKey.length !== ed25519PublicKeySize) {
            throw new Error('the exported Ed25519 public key is not 32 bytes');
        }
        return { privateKey, publicKey };
    } catch (error) {
        throw new CryptoError(CryptoErrorCode.library, `Ed25519 key import failed: ${error.message}`);
    } finally {
        wipe(pkcs8);
    }
}

/** A 64-byte Ed25519 signature over `message`. */
export async function ed25519Sign(privateKey, message) {
    return new Uint8Array(await crypto.subtle.sign(ed25519, privateKey, message));
}

/** Whether `signature` is `publicKey`'s (32 raw bytes) Ed25519 signature over `message`; false for bad keys. */
export async function ed25519Verify(publicKey, signature, message) {
    if (publicKey?.length !== ed25519PublicKeySize || signature?.length !== ed25519SignatureSize) return false;
    try {
        const key = await crypto.subtle.importKey('raw', publicKey, ed25519, false, ['verify']);
        return await crypto.subtle.verify(ed25519, key, signature, message);
    } catch {
        return false;
    }
}
