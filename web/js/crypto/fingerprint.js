/**
 * Fingerprints and safety numbers (SECURITY.md "Identity and keys"): what users compare to know they hold each
 * other's real keys.
 */

import { compareBytes, concatBytes, constantTimeEqual, fromHex, label, toHex } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { sha256, sha512 } from './sha.js';

/** SHA-256 over both public keys' SPKI DER, signing first: 32 bytes, shown as 16 groups of 4 hex digits. */
export class Fingerprint {
    static byteCount = 32;

    /**
     * @param {Uint8Array} bytes exactly 32
     * @throws {DomainError} `invalidFingerprint`
     */
    constructor(bytes) {
        if (!(bytes instanceof Uint8Array) || bytes.length !== Fingerprint.byteCount) {
            throw new DomainError(
                DomainErrorCode.invalidFingerprint,
                `a fingerprint is 32 bytes, got ${bytes?.length}`,
            );
        }
        this.bytes = Uint8Array.from(bytes);
    }

    /**
     * Parses 64 hex digits, with or without the spaces of the grouped spelling.
     * @throws {DomainError} `invalidFingerprint`
     */
    static fromHex(text) {
        const bytes = typeof text === 'string' ? fromHex(text.replaceAll(' ', '')) : null;
        if (bytes === null || bytes.length !== Fingerprint.byteCount) {
            const shown = String(text).slice(0, 80);
            throw new DomainError(DomainErrorCode.invalidFingerprint, `fingerprint "${shown}" is not 64 hex digits`);
        }
        return new Fingerprint(bytes);
    }

    /** 64 lowercase hex digits, the wire spelling. */
    get hex() {
        return toHex(this.bytes);
    }

    /** 16 groups of 4 hex digits separated by spaces, the spelling people compare. */
    get grouped() {
        return this.hex.match(/.{4}/g).join(' ');
    }

    /** Compares all 32 bytes without an early exit. */
    equals(other) {
        return other instanceof Fingerprint && constantTimeEqual(this.bytes, other.bytes);
    }

    toString() {
        return this.grouped;
    }

    toJSON() {
        return this.hex;
    }
}

/**
 * The fingerprint of an identity's public keys: SHA-256(signing SPKI DER || encryption SPKI DER).
 * @param {{signing: Uint8Array, encryption: Uint8Array}} publicKeys
 * @returns {Promise<Fingerprint>}
 */
export async function fingerprintOf(publicKeys) {
    return new Fingerprint(await sha256(concatBytes(publicKeys.signing, publicKeys.encryption)));
}

/**
 * The number two users compare out of band: SHA-512(label || smaller fingerprint || larger fingerprint), its first
 * 60 bytes read as twelve 40-bit big-endian integers, each modulo 100,000, as five digits.
 */
export class SafetyNumber {
    static label = label('wots-safety-number-v1');
    static groupCount = 12;

    /** @param {string[]} groups twelve groups of five digits */
    constructor(groups) {
        this.groups = Object.freeze([...groups]);
    }

    /**
     * The safety number of the users with these fingerprints, in either order.
     * @param {Fingerprint} first
     * @param {Fingerprint} second
     * @returns {Promise<SafetyNumber>}
     */
    static async of(first, second) {
        const [low, high] = compareBytes(first.bytes, second.bytes) <= 0 ? [first, second] : [second, first];
        const digest = await sha512(concatBytes(SafetyNumber.label, low.bytes, high.bytes));
        const groups = [];
        for (let group = 0; group < SafetyNumber.groupCount; group++) {
            let value = 0;
            // 40 bits stay exact in a double (< 2^53).
            for (const byte of digest.subarray(5 * group, 5 * group + 5)) value = value * 256 + byte;
            groups.push(String(value % 100000).padStart(5, '0'));
        }
        return new SafetyNumber(groups);
    }

    /** 60 digits without spaces. */
    get digits() {
        return this.groups.join('');
    }

    /** Twelve groups of five digits separated by spaces. */
    toString() {
        return this.groups.join(' ');
    }
}

/**
 * The safety number of two users' public keys, as the spaced text people compare.
 * @returns {Promise<string>}
 */
export async function safetyNumber(firstPublicKeys, secondPublicKeys) {
    const [first, second] = await Promise.all([fingerprintOf(firstPublicKeys), fingerprintOf(secondPublicKeys)]);
    return (await SafetyNumber.of(first, second)).toString();
}
