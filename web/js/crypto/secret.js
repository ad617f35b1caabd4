/**
 * The user's secret: scrypt parameters, their accepted bounds, and the two keys derived from the secret
 * (SECURITY.md "The secret, key storage and restore").
 */

import { concatBytes, fromBase64, label, randomBytes, toBase64, utf8, wipe } from './bytes.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { scrypt } from './scrypt.js';
import { sha256 } from './sha.js';

/**
 * What a stored record's scrypt parameters may be, so a hostile record cannot exhaust a client. All the bounds
 * live here: raising a floor (say N ≥ 2^15, r ≥ 8) is one edit.
 */
export const KeyDerivationBounds = Object.freeze({
    saltLength: Object.freeze({ minimum: 16, maximum: 64 }),
    /** N must also be a power of two. */
    n: Object.freeze({ minimum: 2, maximum: 2 ** 20 }),
    r: Object.freeze({ minimum: 1, maximum: 32 }),
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
     * @throws {CryptoError} `malformed`, naming the parameter and the rule
     */
    validate() {
        const bounds = KeyDerivationBounds;
        const { salt, n, r, p } = this;
        const within = (value, range) =>
            Number.isSafeInteger(value) && value >= range.minimum && value <= range.maximum;
        if (!(salt instanceof Uint8Array) || !within(salt.length, bounds.saltLength)) {
            const length = salt?.length ?? 'no';
            const range = bounds.saltLength;
            fail(`scrypt salt is ${length} bytes (must be ${range.minimum}–${range.maximum})`);
        }
        if (!within(n, bounds.n) || (n & (n - 1)) !== 0) {
            fail(`scrypt N = ${n} is not a power of two from ${bounds.n.minimum} to 2^${Math.log2(bounds.n.maximum)}`);
        }
        if (!within(r, bounds.r) || !within(p, bounds.p)) {
            const rule = `r ${bounds.r.minimum}–${bounds.r.maximum}, p ${bounds.p.minimum}–${bounds.p.maximum}`;
            fail(`scrypt r = ${r}, p = ${p} out of bounds (${rule})`);
        }
        if (128 * r * n > bounds.maximumMemory) {
            fail(`scrypt N = ${n}, r = ${r} needs more than ${bounds.maximumMemory / 2 ** 20} MiB`);
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

/**
 * The two independent keys scrypt derives from a user's secret: the encryption key seals the private keys, the
 * authentication key proves knowledge of the secret for a restore. Never describes its keys.
 */
export class SecretKeys {
    /** Label hashed before the authentication key to make the secret verifier. */
    static verifierLabel = label('wots-secret-verifier-v1');
    static keySize = 32;

    /**
     * @param {{encryptionKey: Uint8Array, authenticationKey: Uint8Array, secretVerifier: Uint8Array}} keys
     */
    constructor({ encryptionKey, authenticationKey, secretVerifier }) {
        this.encryptionKey = encryptionKey;
        this.authenticationKey = authenticationKey;
        /** SHA-256(verifierLabel || authenticationKey): what the relay stores and compares. */
        this.secretVerifier = secretVerifier;
    }

    /**
     * Runs scrypt on the secret (UTF-8 of its NFC form) with the given salt and cost.
     * @param {string} secret the passphrase as typed
     * @param {KeyDerivationParameters} parameters checked against `KeyDerivationBounds` before any work
     * @param {{onProgress?: (fraction: number) => void}} [options]
     * @returns {Promise<SecretKeys>}
     * @throws {CryptoError} `malformed` for out-of-bounds parameters
     */
    static async derive(secret, parameters, options = {}) {
        parameters.validate();
        const password = secretBytes(secret);
        const { salt, n, r, p } = parameters;
        const output = await scrypt({ password, salt, n, r, p, length: 2 * SecretKeys.keySize }, options);
        wipe(password);
        const keys = await SecretKeys.fromKeys(output.slice(0, 32), output.slice(32));
        wipe(output);
        return keys;
    }

    /** Makes keys from known bytes (tests, or keys kept in memory), computing the verifier. */
    static async fromKeys(encryptionKey, authenticationKey) {
        const secretVerifier = await SecretKeys.verifier(authenticationKey);
        return new SecretKeys({ encryptionKey, authenticationKey, secretVerifier });
    }

    /** SHA-256(`verifierLabel` || authenticationKey). */
    static async verifier(authenticationKey) {
        return sha256(concatBytes(SecretKeys.verifierLabel, authenticationKey));
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
