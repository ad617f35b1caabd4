/**
 * The clear part of an envelope (SECURITY.md "Header", 121 bytes): who sent it to whom, under which keys, when.
 * It is the AES-GCM associated data and part of the signed bytes.
 */

import { ByteWriter } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { Fingerprint } from './fingerprint.js';
import { messageIDBytes, messageIDFromBytes } from './message-id.js';
import { Token } from './token.js';

export class EnvelopeHeader {
    /** The only layout this build reads and writes. */
    static currentVersion = 1;
    /** 1 + 16 + 16 + 32 + 16 + 32 + 8. */
    static encodedSize = 121;
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
     * @throws {DomainError} `malformedEnvelope` for an id that is not a UUID or a time that is not a non-negative
     *   integer, `sentAtOutOfRange` for a time beyond `maximumSentAtMilliseconds`
     */
    constructor(fields) {
        const { version = EnvelopeHeader.currentVersion, messageID, sender, senderFingerprint } = fields;
        const { recipient, recipientFingerprint, sentAtMilliseconds } = fields;
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
    }

    /** The sender's clock as a Date (milliseconds beyond Date's range give an invalid Date). */
    get sentAt() {
        return new Date(Number(this.sentAtMilliseconds));
    }

    /** The 121 header bytes, in the order SECURITY.md gives. */
    get encoded() {
        return new ByteWriter()
            .writeU8(this.version)
            .write(messageIDBytes(this.messageID))
            .write(this.sender.bytes)
            .write(this.senderFingerprint.bytes)
            .write(this.recipient.bytes)
            .write(this.recipientFingerprint.bytes)
            .writeU64(this.sentAtMilliseconds).bytes;
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
        if (reader.remaining < EnvelopeHeader.encodedSize - 1) {
            throw malformed(`envelope header is shorter than ${EnvelopeHeader.encodedSize} bytes`);
        }
        return new EnvelopeHeader({
            version,
            messageID: messageIDFromBytes(reader.read(16)),
            sender: new Token(reader.read(16)),
            senderFingerprint: new Fingerprint(reader.read(32)),
            recipient: new Token(reader.read(16)),
            recipientFingerprint: new Fingerprint(reader.read(32)),
            sentAtMilliseconds: reader.readU64(),
        });
    }
}

/** @throws {DomainError} `unsupportedVersion` unless `version` is the one this build reads */
export function checkVersion(version) {
    if (version !== EnvelopeHeader.currentVersion) {
        const only = EnvelopeHeader.currentVersion;
        throw new DomainError(
            DomainErrorCode.unsupportedVersion,
            `envelope version ${version} is not supported (only ${only})`,
        );
    }
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
