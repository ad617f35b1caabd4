/** AES-256-GCM with associated data through WebCrypto: 32-byte key, 12-byte nonce, 16-byte tag appended. */

import { CryptoError, CryptoErrorCode } from './errors.js';

export const AESGCM = Object.freeze({ keySize: 32, nonceSize: 12, tagSize: 16 });

async function importKey(key, usage) {
    if (key.length !== AESGCM.keySize) {
        throw new CryptoError(CryptoErrorCode.malformed, `AES-256-GCM key is ${key.length} bytes (must be 32)`);
    }
    return crypto.subtle.importKey('raw', key, { name: 'AES-GCM' }, false, [usage]);
}

function checkNonce(nonce) {
    if (nonce.length !== AESGCM.nonceSize) {
        throw new CryptoError(CryptoErrorCode.malformed, `AES-GCM nonce is ${nonce.length} bytes (must be 12)`);
    }
}

/**
 * Encrypts and authenticates `plaintext` and `aad`.
 * @param {{key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array}} input
 * @returns {Promise<Uint8Array>} ciphertext followed by the 16-byte tag
 */
export async function sealAESGCM({ key, nonce, aad, plaintext }) {
    checkNonce(nonce);
    const cryptoKey = await importKey(key, 'encrypt');
    const algorithm = { name: 'AES-GCM', iv: nonce, additionalData: aad, tagLength: 128 };
    return new Uint8Array(await crypto.subtle.encrypt(algorithm, cryptoKey, plaintext));
}

/**
 * Checks the tag and decrypts.
 * @param {{key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array, failure: CryptoError}} input
 *   `failure` is thrown when the tag does not match, so each caller names its own failure
 * @returns {Promise<Uint8Array>} the plaintext
 */
export async function openAESGCM({ key, nonce, aad, ciphertext, failure }) {
    checkNonce(nonce);
    const cryptoKey = await importKey(key, 'decrypt');
    if (ciphertext.length < AESGCM.tagSize) throw failure;
    const algorithm = { name: 'AES-GCM', iv: nonce, additionalData: aad, tagLength: 128 };
    try {
        return new Uint8Array(await crypto.subtle.decrypt(algorithm, cryptoKey, ciphertext));
    } catch {
        throw failure;
    }
}
