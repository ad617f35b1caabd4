/**
 * The user's secret: scrypt parameters, their accepted bounds, the two keys derived from the secret, and the
 * Ed25519 restore key made from the authentication key (SECURITY.md "The secret, key storage and restore").
 */

import { concatBytes, fromBase64, label, randomBytes, toBase64, utf8, wipe } from './bytes.js';
import { ed25519KeyFromSeed, ed25519Sign } from './ed25519.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { RestoreProof } from './proofs.js';
import { scrypt } from './scrypt.js';
import { sha256 } from './sha.js';

/**
 * What a stored record's scrypt parameters may be: the floors keep a relay from serving a cost that makes the
 * restore credential cheap to guess, the ceilings keep a hostile record from exhausting a client. The same bounds
 * as the Swift side's `KeyDerivationParameters.checkBounds()`; all of them live here.
 */
export const KeyDerivationBounds = Object.freeze({
    saltLength: Object.freeze({ minimum: 16, maximum: 64 }),
    /** N must also be a power of two. */
    n: Object.freeze({ minimum: 2 ** 15, maximum: 2 ** 20 }),
    r: Object.freeze({ minimum: 8, maximum: 32 }),
    p: Object.freeze({ minimum: 1, maximum: 4 }),
    /** Largest `128 · r · N` in bytes: 256 MiB. */
    maximumMemory: 256 * 1024 * 1024,
});

/** Default cost for new records: N = 2^15, r = 8, p = 1 (32 MiB), with a fresh 16-byte salt. */
export const defaultKeyDerivationCost = Object.freeze({ n: 2 ** 15, r: 8, p: 1, saltLength: 16 });
const defaultCost = defaultKeyDerivationCost;

/** The scrypt salt and cost stored beside a sealed private record. */
export class KeyDerivationParameters {
    /**
     * @param {{salt: Uint8Array, n?: number, r?: number, p?: number}} fields cost defaults to the default cost
     */
    constructor({ salt, n = defaultCost.n, r = defaultCost.r, p = defaultCost.p }) {
        this.salt = salt;
        this.n = n;
        this.r = r;
        this.p = p;
    }

    /** Fresh parameters: a random 16-byte salt and the given cost (default N = 2^15, r = 8, p = 1). */
    static random(cost = {}) {
        return new KeyDerivationParameters({ salt: randomBytes(defaultKeyDerivationCost.saltLength), ...cost });
    }

    /**
     * Checks the parameters against `KeyDerivationBounds`.
     * @throws {CryptoError} `invalidKeyDerivation`, naming the parameter and the rule
     */
    validate() {
        const bounds = KeyDerivationBounds;
        const { salt, n, r, p } = this;
        const within = (value, range) =>
            Number.isSafeInteger(value) && value >= range.minimum && value <= range.maximum;
        if (!(salt instanceof Uint8Array) || !within(salt.length, bounds.saltLength)) {
            const length = salt?.length ?? 'no';
            const range = bounds.saltLength;
            outOfBounds(`scrypt salt is ${length} bytes (must be ${range.minimum}–${range.maximum})`);
        }
        if (!within(n, bounds.n) || (n & (n - 1)) !== 0) {
            const range = `2^${Math.log2(bounds.n.minimum)} to 2^${Math.log2(bounds.n.maximum)}`;
            const why = 'a weaker cost makes the secret cheap to guess';
            outOfBounds(`scrypt N = ${n} is not a power of two from ${range} (${why})`);
        }
        if (!within(r, bounds.r) || !within(p, bounds.p)) {
            const rule = `r ${bounds.r.minimum}–${bounds.r.maximum}, p ${bounds.p.minimum}–${bounds.p.maximum}`;
            outOfBounds(`scrypt r = ${r}, p = ${p} out of bounds (${rule})`);
        }
        if (128 * r * n > bounds.maximumMemory) {
            outOfBounds(`scrypt N = ${n}, r = ${r} needs more than ${bounds.maximumMemory / 2 ** 20} MiB`);
        }
    }

    /** The relay's JSON form: `{salt: base64, n, r, p}`. */
    toJSON() {
        return { salt: toBase64(this.salt), n: this.n, r: this.r, p: this.p };
    }

    /**
     * Reads the JSON form. Does not check the bounds; `SecretKeys.derive` does before any work.
     * @throws {CryptoError} `malformed` when a field is missing or mistyped
     */
    static fromJSON(json) {
        const salt = fromBase64(json?.salt);
        if (salt === null || ![json.n, json.r, json.p].every(Number.isSafeInteger)) {
            fail('key derivation parameters need a base64 salt and integer n, r, p');
        }
        return new KeyDerivationParameters({ salt, n: json.n, r: json.r, p: json.p });
    }
}

function fail(reason) {
    throw new CryptoError(CryptoErrorCode.malformed, reason);
}

function outOfBounds(reason) {
    throw new CryptoError(CryptoErrorCode.invalidKeyDerivation, reason);
}

/**
 * The two independent keys scrypt derives from a user's secret: the encryption key seals the private keys, the
 * authentication key makes the restore key that proves knowledge of the secret for a restore. Never describes its
 * keys.
 */
export class SecretKeys {
    /** Label hashed before the authentication key to make the restore key's seed. */
    static restoreKeyLabel = label('wots-restore-key-v1');
    static keySize = 32;

    /** @param {{encryptionKey: Uint8Array, authenticationKey: Uint8Array}} keys */
    constructor({ encryptionKey, authenticationKey }) {
        this.encryptionKey = encryptionKey;
        this.authenticationKey = authenticationKey;
    }

    /**
     * Runs scrypt on the secret (UTF-8 of its NFC form) with the given salt and cost.
     * @param {string} secret the passphrase as typed
     * @param {KeyDerivationParameters} parameters checked against `KeyDerivationBounds` before any work
     * @param {{onProgress?: (fraction: number) => void}} [options]
     * @returns {Promise<SecretKeys>}
     * @throws {CryptoError} `invalidKeyDerivation` for out-of-bounds parameters
     */
    static async derive(secret, parameters, options = {}) {
        parameters.validate();
        const password = secretBytes(secret);
        const { salt, n, r, p } = parameters;
        const output = await scrypt({ password, salt, n, r, p, length: 2 * SecretKeys.keySize }, options);
        wipe(password);
        const keys = SecretKeys.fromKeys(output.slice(0, 32), output.slice(32));
        wipe(output);
        return keys;
    }

    /** Makes keys from known bytes (tests, or keys kept in memory). */
    static fromKeys(encryptionKey, authenticationKey) {
        return new SecretKeys({ encryptionKey, authenticationKey });
    }

    /**
     * The Ed25519 restore key: its seed is SHA-256(`restoreKeyLabel` || authenticationKey). The relay keeps only
     * its public key (the record's `secretVerifier`) and checks a signature over a single-use nonce.
     * @returns {Promise<{privateKey: CryptoKey, publicKey: Uint8Array}>} `privateKey` is not extractable
     * @throws {CryptoError} `crypto_library` when WebCrypto has no Ed25519
     */
    async restoreKey() {
        const seed = await sha256(concatBytes(SecretKeys.restoreKeyLabel, this.authenticationKey));
        try {
            return await ed25519KeyFromSeed(seed);
        } finally {
            wipe(seed);
        }
    }

    /** The restore key's 32-byte public key: what the relay stores as the record's `secretVerifier`. */
    async secretVerifier() {
        return (await this.restoreKey()).publicKey;
    }

    /**
     * Signs a restore challenge for `nickname` at the relay `relayID` (`RestoreProof`).
     * @param {{relayID: Uint8Array, nonce: Uint8Array, nickname: import('./nickname.js').Nickname}} challenge
     * @returns {Promise<Uint8Array>} the 64-byte Ed25519 signature
     * @throws {CryptoError} `malformed` for an empty or oversized relay id or nonce
     */
    async signRestore({ relayID, nonce, nickname }) {
        const message = RestoreProof.signedBytes({ relayID, nonce, nickname });
        return ed25519Sign((await this.restoreKey()).privateKey, message);
    }

    toString() {
        return 'SecretKeys(2 × 256 bits)';
    }

    /** Keeps keys out of accidental JSON logging. */
    toJSON() {
        return this.toString();
    }
}

/**
 * The bytes scrypt receives for a secret: UTF-8 of its Unicode NFC form, so the same passphrase typed on two
 * keyboards (precomposed "é" or "e" + combining acute) derives the same keys.
 */
export function secretBytes(secret) {
    return utf8(secret.normalize('NFC'));
}
