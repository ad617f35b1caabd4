/**
 * The clear part of an envelope (SECURITY.md "Header"): who sent it to whom, under which keys, when, and (v2) when
 * it vanishes. Version 1 is 121 bytes; version 2 (what clients send) adds `expiresAt` as a u64 of milliseconds,
 * 0 for never, 129 bytes. It is the AES-GCM associated data and part of the signed bytes.
 */

import { ByteWriter } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { Fingerprint } from './fingerprint.js';
import { messageIDBytes, messageIDFromBytes } from './message-id.js';
import { Token } from './token.js';

export class EnvelopeHeader {
    /** The layout this build writes; it reads every one of `supportedVersions`. */
    static currentVersion = 2;
    static supportedVersions = Object.freeze([1, 2]);
    /** Version 1: 1 + 16 + 16 + 32 + 16 + 32 + 8. */
    static encodedSize = 121;
    /** Version 2: version 1's fields, then `expiresAt` (8). */
    static encodedSizeV2 = 129;

    /** The header's size in bytes for `version`. */
    static sizeOf(version) {
        return version === 1 ? EnvelopeHeader.encodedSize : EnvelopeHeader.encodedSizeV2;
    }
    /**
     * Largest `sentAt`: 2^53 − 1 milliseconds (year 287,396), the largest integer a JavaScript number holds
     * exactly, as on the Swift side (`EnvelopeHeader.maximumSentAt`).
     */
    static maximumSentAtMilliseconds = 2n ** 53n - 1n;

    /**
     * @param {object} fields
     * @param {number} [fields.version] default 1
     * @param {string} fields.messageID UUID text form
     * @param {Token} fields.sender
     * @param {Fingerprint} fields.senderFingerprint
     * @param {Token} fields.recipient
     * @param {Fingerprint} fields.recipientFingerprint
     * @param {bigint | number} fields.sentAtMilliseconds milliseconds since the epoch, by the sender's clock
     * @param {bigint | number} [fields.expiresAtMilliseconds] version 2 only: 0 (default) for never, else after
     *   `sentAt` and at most 2^53 − 1
     * @throws {DomainError} `malformedEnvelope` for an id that is not a UUID or a time that is not a non-negative
     *   integer, `sentAtOutOfRange` for a time beyond `maximumSentAtMilliseconds`
     */
    constructor(fields) {
        const { version = EnvelopeHeader.currentVersion, messageID, sender, senderFingerprint } = fields;
        const { recipient, recipientFingerprint, sentAtMilliseconds, expiresAtMilliseconds = 0n } = fields;
        const idBytes = messageIDBytes(messageID);
        if (idBytes === null) throw malformed(`message id "${String(messageID).slice(0, 40)}" is not a UUID`);
        if (!(sender instanceof Token) || !(recipient instanceof Token)) {
            throw malformed('sender and recipient must be tokens');
        }
        if (!(senderFingerprint instanceof Fingerprint) || !(recipientFingerprint instanceof Fingerprint)) {
            throw malformed('sender and recipient fingerprints must be fingerprints');
        }
        this.version = version;
        this.messageID = messageIDFromBytes(idBytes);
        this.sender = sender;
        this.senderFingerprint = senderFingerprint;
        this.recipient = recipient;
        this.recipientFingerprint = recipientFingerprint;
        this.sentAtMilliseconds = checkedSentAt(sentAtMilliseconds);
        this.expiresAtMilliseconds = checkedExpiresAt(version, expiresAtMilliseconds, this.sentAtMilliseconds);
    }

    /** When the message vanishes, or null for never (and for every version 1 header). */
    get expiresAt() {
        return this.expiresAtMilliseconds === 0n ? null : new Date(Number(this.expiresAtMilliseconds));
    }

    /** The sender's clock as a Date (milliseconds beyond Date's range give an invalid Date). */
    get sentAt() {
        return new Date(Number(this.sentAtMilliseconds));
    }

    /** The 121 (v1) or 129 (v2) header bytes, in the order SECURITY.md gives. */
    get encoded() {
        const writer = new ByteWriter()
            .writeU8(this.version)
            .write(messageIDBytes(this.messageID))
            .write(this.sender.bytes)
            .write(this.senderFingerprint.bytes)
            .write(this.recipient.bytes)
            .write(this.recipientFingerprint.bytes)
            .writeU64(this.sentAtMilliseconds);
        if (this.version >= 2) writer.writeU64(this.expiresAtMilliseconds);
        return writer.bytes;
    }

    /**
     * Reads a header from a `ByteReader`.
     * @throws {DomainError} `unsupportedVersion` for another version, `malformedEnvelope` when too short,
     *   `sentAtOutOfRange` for a sentAt beyond 2^53 − 1
     */
    static read(reader) {
        const version = reader.readU8();
        if (version === null) throw malformed('envelope is empty');
        checkVersion(version);
        const size = EnvelopeHeader.sizeOf(version);
        if (reader.remaining < size - 1) throw malformed(`envelope v${version} header is shorter than ${size} bytes`);
        return new EnvelopeHeader({
            version,
            messageID: messageIDFromBytes(reader.read(16)),
            sender: new Token(reader.read(16)),
            senderFingerprint: new Fingerprint(reader.read(32)),
            recipient: new Token(reader.read(16)),
            recipientFingerprint: new Fingerprint(reader.read(32)),
            sentAtMilliseconds: reader.readU64(),
            expiresAtMilliseconds: version >= 2 ? reader.readU64() : 0n,
        });
    }
}

/** @throws {DomainError} `unsupportedVersion` unless this build reads `version` */
export function checkVersion(version) {
    if (!EnvelopeHeader.supportedVersions.includes(version)) {
        const known = EnvelopeHeader.supportedVersions.join(' and ');
        throw new DomainError(
            DomainErrorCode.unsupportedVersion,
            `envelope version ${version} is not supported (only ${known})`,
        );
    }
}

/**
 * @returns {bigint} `value` as a BigInt: 0 for never, else after `sentAt` and at most 2^53 − 1
 * @throws {DomainError} `malformedEnvelope` for a version 1 header with an expiry, or an expiry not after `sentAt`,
 *   `sentAtOutOfRange` above the maximum
 */
export function checkedExpiresAt(version, value, sentAt) {
    const milliseconds = checkedSentAt(value);
    if (milliseconds === 0n) return 0n;
    if (version < 2) throw malformed('a version 1 envelope has no expiresAt');
    if (milliseconds <= sentAt) throw malformed(`envelope expiresAt ${value} ms is not after sentAt ${sentAt} ms`);
    return milliseconds;
}

/**
 * @returns {bigint} `value` as a BigInt
 * @throws {DomainError} `malformedEnvelope` unless a non-negative integer, `sentAtOutOfRange` above the maximum
 */
export function checkedSentAt(value) {
    const milliseconds = typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    if (typeof milliseconds !== 'bigint' || milliseconds < 0n) {
        throw malformed(`sentAt ${value} is not a non-negative integer of milliseconds`);
    }
    if (milliseconds > EnvelopeHeader.maximumSentAtMilliseconds) {
        throw new DomainError(DomainErrorCode.sentAtOutOfRange, `envelope sentAt ${value} ms is beyond 2^53 − 1`);
    }
    return milliseconds;
}

function malformed(reason) {
    return new DomainError(DomainErrorCode.malformedEnvelope, reason);
}
