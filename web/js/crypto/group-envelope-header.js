/**
 * The clear, signed part of a group envelope (SECURITY.md, "Group envelope (version 3)"): who sent it, to which group
 * under which membership state, the sender's sequence, the dates, the key commitment and the whole recipient list with
 * a hash of each recipient's slot. `179 + 80 × n` bytes; it is the AES-GCM associated data. As WotsCore's
 * `GroupEnvelopeHeader` and `GroupRecipient`.
 */

import { ByteWriter, compareBytes } from './bytes.js';
import { checkedExpiresAt, checkedSentAt } from './envelope-header.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { Fingerprint } from './fingerprint.js';
import { GroupID } from './group-state.js';
import { messageIDBytes, messageIDFromBytes } from './message-id.js';
import { Token } from './token.js';

/** One entry of the signed recipient list: who gets a slot, for which key, and the SHA-256 of that slot. */
export class GroupRecipient {
    /** 16 + 32 + 32 bytes. */
    static encodedSize = 80;

    /** @param {{token: Token, fingerprint: Fingerprint, slotHash: Uint8Array}} fields */
    constructor({ token, fingerprint, slotHash }) {
        this.token = token;
        this.fingerprint = fingerprint;
        this.slotHash = slotHash;
    }
}

export class GroupEnvelopeHeader {
    static version = 3;
    /** Everything before the recipient list. */
    static fixedSize = 179;
    /** The most recipients any group envelope may list; relays may allow fewer. */
    static maximumRecipients = 256;

    /**
     * @param {object} fields
     * @param {string} fields.messageID UUID text form
     * @param {Token} fields.sender
     * @param {Fingerprint} fields.senderFingerprint
     * @param {GroupID} fields.groupID
     * @param {bigint | number} fields.membershipVersion the version of the state the sender used
     * @param {Uint8Array} fields.membershipStateHash that state's hash, 32 bytes
     * @param {bigint | number} fields.senderSequence per (group, sender), from 1
     * @param {bigint | number} fields.sentAtMilliseconds
     * @param {bigint | number} [fields.expiresAtMilliseconds] 0 (default) = never
     * @param {Uint8Array} fields.keyCommitment SHA-256("wots-group-key-v1" || 0x00 || K)
     * @param {GroupRecipient[]} fields.recipients sorted by token bytes, no duplicates, 1…256
     * @throws {DomainError} `malformedEnvelope` (`validate`), `sentAtOutOfRange`
     */
    constructor(fields) {
        const { messageID, sender, senderFingerprint, groupID } = fields;
        const { membershipStateHash, keyCommitment, recipients } = fields;
        const idBytes = messageIDBytes(messageID);
        if (idBytes === null) throw malformed(`message id "${String(messageID).slice(0, 40)}" is not a UUID`);
        const kinds = sender instanceof Token && senderFingerprint instanceof Fingerprint && groupID instanceof GroupID;
        if (!kinds) {
            throw malformed('a group envelope needs a sender token, its fingerprint and a group id');
        }
        this.messageID = messageIDFromBytes(idBytes);
        this.sender = sender;
        this.senderFingerprint = senderFingerprint;
        this.groupID = groupID;
        this.membershipVersion = u64(fields.membershipVersion, 'membership version');
        this.membershipStateHash = membershipStateHash;
        this.senderSequence = u64(fields.senderSequence, 'sender sequence');
        this.sentAtMilliseconds = checkedSentAt(fields.sentAtMilliseconds);
        this.expiresAtMilliseconds = checkedExpiresAt(3, fields.expiresAtMilliseconds ?? 0n, this.sentAtMilliseconds);
        this.keyCommitment = keyCommitment;
        this.recipients = recipients;
        this.validate();
    }

    /** `179 + 80 × n`. */
    get encodedSize() {
        return GroupEnvelopeHeader.fixedSize + GroupRecipient.encodedSize * this.recipients.length;
    }

    get sentAt() {
        return new Date(Number(this.sentAtMilliseconds));
    }

    /** The entry naming `token`, or null. */
    recipient(token) {
        return this.recipients.find((entry) => entry.token.equals(token)) ?? null;
    }

    /**
     * The rules a header obeys: 32-byte hashes, 1…256 recipients strictly sorted by token, membership version and
     * sender sequence from 1 (the dates are checked on construction).
     * @throws {DomainError} `malformedEnvelope` naming the rule
     */
    validate() {
        const slotHashes = this.recipients.map((entry) => entry.slotHash);
        const hashes = [this.membershipStateHash, this.keyCommitment, ...slotHashes];
        if (!hashes.every((hash) => hash instanceof Uint8Array && hash.length === 32)) {
            throw malformed('group envelope hashes must be 32 bytes each');
        }
        const count = this.recipients.length;
        if (count < 1 || count > GroupEnvelopeHeader.maximumRecipients) {
            throw malformed(`group envelope lists ${count} recipients (1–${GroupEnvelopeHeader.maximumRecipients})`);
        }
        for (const entry of this.recipients) {
            if (!(entry.token instanceof Token) || !(entry.fingerprint instanceof Fingerprint)) {
                throw malformed('a group recipient needs a token and a fingerprint');
            }
        }
        for (let i = 1; i < count; i++) {
            if (compareBytes(this.recipients[i - 1].token.bytes, this.recipients[i].token.bytes) >= 0) {
                throw malformed('group envelope recipients must be sorted by token without duplicates '
                    + `(${this.recipients[i].token} is out of order)`);
            }
        }
        if (this.membershipVersion < 1n || this.senderSequence < 1n) {
            throw malformed('group envelope membership version and sender sequence start at 1');
        }
    }

    /** The header bytes in SECURITY.md's order. */
    get encoded() {
        const writer = new ByteWriter()
            .writeU8(GroupEnvelopeHeader.version)
            .write(messageIDBytes(this.messageID))
            .write(this.sender.bytes)
            .write(this.senderFingerprint.bytes)
            .write(this.groupID.bytes)
            .writeU64(this.membershipVersion)
            .write(this.membershipStateHash)
            .writeU64(this.senderSequence)
            .writeU64(this.sentAtMilliseconds)
            .writeU64(this.expiresAtMilliseconds)
            .write(this.keyCommitment)
            .writeU16(this.recipients.length);
        for (const entry of this.recipients) {
            writer.write(entry.token.bytes).write(entry.fingerprint.bytes).write(entry.slotHash);
        }
        return writer.bytes;
    }

    /**
     * Reads and validates a header.
     * @param {import('./bytes.js').ByteReader} reader
     * @throws {DomainError} `unsupportedVersion` for another first byte, `malformedEnvelope` when short or invalid,
     *   `sentAtOutOfRange`
     */
    static read(reader) {
        const version = reader.readU8();
        if (version === null) throw malformed('group envelope is empty');
        if (version !== GroupEnvelopeHeader.version) {
            throw new DomainError(DomainErrorCode.unsupportedVersion,
                `envelope version ${version} is not a group envelope (3)`);
        }
        if (reader.remaining < GroupEnvelopeHeader.fixedSize - 1) throw short();
        const fields = {
            messageID: messageIDFromBytes(reader.read(16)),
            sender: new Token(reader.read(16)),
            senderFingerprint: new Fingerprint(reader.read(32)),
            groupID: new GroupID(reader.read(16)),
            membershipVersion: reader.readU64(),
            membershipStateHash: reader.read(32),
            senderSequence: reader.readU64(),
            sentAtMilliseconds: reader.readU64(),
            expiresAtMilliseconds: reader.readU64(),
            keyCommitment: reader.read(32),
        };
        const count = reader.readU16();
        if (reader.remaining < count * GroupRecipient.encodedSize) throw short();
        fields.recipients = [];
        for (let i = 0; i < count; i++) {
            fields.recipients.push(new GroupRecipient({
                token: new Token(reader.read(16)),
                fingerprint: new Fingerprint(reader.read(32)),
                slotHash: reader.read(32),
            }));
        }
        return new GroupEnvelopeHeader(fields);
    }
}

function u64(value, what) {
    const big = typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
    if (typeof big !== 'bigint' || big < 0n || big > 0xffffffffffffffffn) {
        throw malformed(`group envelope ${what} ${String(value).slice(0, 30)} is not a u64`);
    }
    return big;
}

function short() {
    return malformed('group envelope header is shorter than its recipient count says');
}

function malformed(reason) {
    return new DomainError(DomainErrorCode.malformedEnvelope, reason);
}
