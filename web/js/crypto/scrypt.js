/**
 * scrypt (RFC 7914), the one primitive written by hand: WebCrypto has no scrypt. PBKDF2-HMAC-SHA-256 comes from
 * WebCrypto; Salsa20/8, BlockMix and ROMix are here, over little-endian 32-bit words in Uint32Arrays, with every
 * buffer allocated once per call so the inner loops allocate nothing.
 *
 * This function checks only what scrypt itself requires. The bounds Wots accepts for a stored record are
 * `KeyDerivationBounds` in secret.js.
 */

/** Progress reports per call, at most; each costs a callback, so not one per step. */
const progressReports = 64;

/**
 * Derives `length` bytes with scrypt.
 * @param {{password: Uint8Array, salt: Uint8Array, n: number, r: number, p: number, length: number}} input
 *   `n` a power of two ≥ 2, `r` and `p` ≥ 1 with r·p < 2^30
 * @param {{onProgress?: (fraction: number) => void}} [options] called with 0, fractions up to 1, and 1 at the end
 * @returns {Promise<Uint8Array>}
 * @throws {RangeError} for parameters scrypt does not define
 */
export async function scrypt({ password, salt, n, r, p, length }, { onProgress } = {}) {
    checkParameters(n, r, p, length);
    const report = onProgress ?? (() => {});
    report(0);
    const blockBytes = 128 * r;
    const b = await pbkdf2(password, salt, p * blockBytes);
    const words = 32 * r;
    const x = new Uint32Array(words);
    const y = new Uint32Array(words);
    const v = new Uint32Array(words * n);
    const t = new Uint32Array(16);
    const totalSteps = 2 * n * p;
    const stepsPerReport = Math.max(1, Math.floor(totalSteps / progressReports));
    for (let block = 0; block < p; block++) {
        const offset = block * blockBytes;
        readWords(b, offset, x);
        roMix(x, y, v, t, n, r, (done) => {
            const step = block * 2 * n + done;
            if (step % stepsPerReport === 0) report(step / totalSteps);
        });
        writeWords(x, b, offset);
    }
    v.fill(0);
    const output = await pbkdf2(password, b, length);
    b.fill(0);
    report(1);
    return output;
}

function checkParameters(n, r, p, length) {
    if (!Number.isSafeInteger(n) || n < 2 || (n & (n - 1)) !== 0 || n > 2 ** 30) {
        throw new RangeError(`scrypt N = ${n} is not a power of two from 2 to 2^30`);
    }
    if (!Number.isSafeInteger(r) || !Number.isSafeInteger(p) || r < 1 || p < 1 || r * p >= 2 ** 30) {
        throw new RangeError(`scrypt r = ${r}, p = ${p} must be at least 1 with r·p < 2^30`);
    }
    if (!Number.isSafeInteger(length) || length < 1 || length > 2 ** 32 - 1) {
        throw new RangeError(`scrypt output length ${length} is not 1…2^32-1 bytes`);
    }
}

/** PBKDF2-HMAC-SHA-256 with one iteration, through WebCrypto. */
async function pbkdf2(password, salt, length) {
    // HMAC pads a short key with zeros to the 64-byte block, so an empty password and 64 zero bytes are the same
    // key; some WebCrypto implementations refuse a zero-length PBKDF2 key.
    const keyBytes = password.length === 0 ? new Uint8Array(64) : password;
    const key = await crypto.subtle.importKey('raw', keyBytes, 'PBKDF2', false, ['deriveBits']);
    const algorithm = { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 1 };
    return new Uint8Array(await crypto.subtle.deriveBits(algorithm, key, length * 8));
}

function readWords(bytes, offset, words) {
    for (let i = 0, j = offset; i < words.length; i++, j += 4) {
        words[i] = bytes[j] | (bytes[j + 1] << 8) | (bytes[j + 2] << 16) | (bytes[j + 3] << 24);
    }
}

function writeWords(words, bytes, offset) {
    for (let i = 0, j = offset; i < words.length; i++, j += 4) {
        const word = words[i];
        bytes[j] = word;
        bytes[j + 1] = word >>> 8;
        bytes[j + 2] = word >>> 16;
        bytes[j + 3] = word >>> 24;
    }
}

/** ROMix (RFC 7914 §5) on `x` in place; `y`, `v`, `t` are scratch. `progress(i)` after each of the 2N steps. */
function roMix(x, y, v, t, n, r, progress) {
    const words = 32 * r;
    const last = (2 * r - 1) * 16;
    for (let i = 0; i < n; i++) {
        v.set(x, i * words);
        blockMix(x, y, t, r);
        x.set(y);
        progress(i + 1);
    }
    const mask = n - 1;
    for (let i = 0; i < n; i++) {
        // Integerify: the first word of the last 64-byte block; N ≤ 2^30, so its low 32 bits suffice.
        const base = (x[last] & mask) * words;
        for (let k = 0; k < words; k++) x[k] ^= v[base + k];
        blockMix(x, y, t, r);
        x.set(y);
        progress(n + i + 1);
    }
}

/** BlockMix-Salsa20/8 (RFC 7914 §4): reads `input`, writes the shuffled blocks (evens, then odds) to `output`. */
function blockMix(input, output, t, r) {
    const last = (2 * r - 1) * 16;
    for (let k = 0; k < 16; k++) t[k] = input[last + k];
    for (let i = 0; i < 2 * r; i++) {
        const source = i * 16;
        for (let k = 0; k < 16; k++) t[k] ^= input[source + k];
        salsa20_8(t);
        const target = ((i & 1) === 0 ? i >> 1 : r + (i >> 1)) * 16;
        for (let k = 0; k < 16; k++) output[target + k] = t[k];
    }
}

/** The Salsa20/8 core (RFC 7914 §3) on 16 words in place. */
function salsa20_8(b) {
    let x0 = b[0], x1 = b[1], x2 = b[2], x3 = b[3], x4 = b[4], x5 = b[5], x6 = b[6], x7 = b[7];
    let x8 = b[8], x9 = b[9], x10 = b[10], x11 = b[11], x12 = b[12], x13 = b[13], x14 = b[14], x15 = b[15];
    let u;
    for (let i = 0; i < 8; i += 2) {
        // Columns.
        u = (x0 + x12) | 0; x4 ^= (u << 7) | (u >>> 25);
        u = (x4 + x0) | 0; x8 ^= (u << 9) | (u >>> 23);
        u = (x8 + x4) | 0; x12 ^= (u << 13) | (u >>> 19);
        u = (x12 + x8) | 0; x0 ^= (u << 18) | (u >>> 14);
        u = (x5 + x1) | 0; x9 ^= (u << 7) | (u >>> 25);
        u = (x9 + x5) | 0; x13 ^= (u << 9) | (u >>> 23);
        u = (x13 + x9) | 0; x1 ^= (u << 13) | (u >>> 19);
        u = (x1 + x13) | 0; x5 ^= (u << 18) | (u >>> 14);
        u = (x10 + x6) | 0; x14 ^= (u << 7) | (u >>> 25);
        u = (x14 + x10) | 0; x2 ^= (u << 9) | (u >>> 23);
        u = (x2 + x14) | 0; x6 ^= (u << 13) | (u >>> 19);
        u = (x6 + x2) | 0; x10 ^= (u << 18) | (u >>> 14);
        u = (x15 + x11) | 0; x3 ^= (u << 7) | (u >>> 25);
        u = (x3 + x15) | 0; x7 ^= (u << 9) | (u >>> 23);
        u = (x7 + x3) | 0; x11 ^= (u << 13) | (u >>> 19);
        u = (x11 + x7) | 0; x15 ^= (u << 18) | (u >>> 14);
        // Rows.
        u = (x0 + x3) | 0; x1 ^= (u << 7) | (u >>> 25);
        u = (x1 + x0) | 0; x2 ^= (u << 9) | (u >>> 23);
        u = (x2 + x1) | 0; x3 ^= (u << 13) | (u >>> 19);
        u = (x3 + x2) | 0; x0 ^= (u << 18) | (u >>> 14);
        u = (x5 + x4) | 0; x6 ^= (u << 7) | (u >>> 25);
        u = (x6 + x5) | 0; x7 ^= (u << 9) | (u >>> 23);
        u = (x7 + x6) | 0; x4 ^= (u << 13) | (u >>> 19);
        u = (x4 + x7) | 0; x5 ^= (u << 18) | (u >>> 14);
        u = (x10 + x9) | 0; x11 ^= (u << 7) | (u >>> 25);
        u = (x11 + x10) | 0; x8 ^= (u << 9) | (u >>> 23);
        u = (x8 + x11) | 0; x9 ^= (u << 13) | (u >>> 19);
        u = (x9 + x8) | 0; x10 ^= (u << 18) | (u >>> 14);
        u = (x15 + x14) | 0; x12 ^= (u << 7) | (u >>> 25);
        u = (x12 + x15) | 0; x13 ^= (u << 9) | (u >>> 23);
        u = (x13 + x12) | 0; x14 ^= (u << 13) | (u >>> 19);
        u = (x14 + x13) | 0; x15 ^= (u << 18) | (u >>> 14);
    }
    b[0] += x0; b[1] += x1; b[2] += x2; b[3] += x3; b[4] += x4; b[5] += x5; b[6] += x6; b[7] += x7;
    b[8] += x8; b[9] += x9; b[10] += x10; b[11] += x11; b[12] += x12; b[13] += x13; b[14] += x14; b[15] += x15;
}
