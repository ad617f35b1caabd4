/** SHA-2 digests through WebCrypto. */

/**
 * SHA-256 of `bytes`.
 * @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>} 32 bytes
 */
export async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * SHA-512 of `bytes`.
 * @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>} 64 bytes
 */
export async function sha512(bytes) {
    return new Uint8Array(await crypto.subtle.digest('SHA-512', bytes));
}
