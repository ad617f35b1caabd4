/**
 * Sealing and opening group envelopes (SECURITY.md, "Group envelope (version 3)"), as WotsCrypto's
 * `GroupEnvelope+Sealing`: one fresh content key K per message, wrapped with RSA-OAEP for every recipient (one slot
 * each), committed to in the header, the header (with each slot's SHA-256) as GCM associated data, one RSA-PSS
 * signature. Opening follows the spec's order; nothing is decrypted before the signature verifies, and a slot whose
 * hash is not the signed one never reaches RSA.
 */

import { compareBytes, concatBytes, constantTimeEqual, randomBytes, wipe } from './bytes.js';
import { AESGCM, openAESGCM, sealAESGCM } from './aes-gcm.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { GroupEnvelope } from './group-envelope.js';
import { GroupEnvelopeHeader, GroupRecipient } from './group-envelope-header.js';
import { ParsedPublicKeys } from './keys.js';
import { MessagePadding } from './message-padding.js';
import { newMessageID } from './message-id.js';
import { encryptOAEP, RSAParameters, verifyPSS } from './rsa.js';
import { sha256 } from './sha.js';

/** SHA-256("wots-group-key-v1" || 0x00 || K). @returns {Promise<Uint8Array>} */
export function keyCommitment(contentKey) {
    return sha256(concatBytes(GroupEnvelope.keyCommitmentLabel, contentKey));
}

/**
 * Encrypts `plaintext` once for every recipient and signs the body with the sender's signing key.
 * @param {object} input
 * @param {Uint8Array} input.plaintext typed content (padded here)
 * @param {string} [input.messageID] default a fresh random UUID
 * @param {number | bigint | Date} [input.sentAt] default now, in milliseconds
 * @param {import('./token.js').Token} input.sender
 * @param {import('./keys.js').IdentityKeys} input.identity the sender's private keys
 * @param {import('./group-state.js').GroupID} input.groupID
 * @param {number | bigint} input.membershipVersion the version of the state the sender uses
 * @param {Uint8Array} input.membershipStateHash that state's hash
 * @param {number | bigint} input.senderSequence the sender's next sequence in this group, from 1
 * @param {Array<{token: import('./token.js').Token, publicKeys: import('./keys.js').PublicKeys}>} input.recipients
 *   1…256 distinct recipients in any order (sorted here), with their keys as the sender trusts them
 * @param {number | bigint} [input.expiresAt] milliseconds, 0 (default) = never
 * @returns {Promise<{envelope: GroupEnvelope, slots: Array<{recipient: import('./token.js').Token,
 *   wrappedKey: Uint8Array}>}>} the slots in header order
 * @throws {DomainError} `malformedEnvelope` for an empty, oversized or duplicated list; {CryptoError} `invalidKey`
 */
export async function sealGroupEnvelope(input) {
    const { plaintext, messageID = newMessageID(), sentAt = Date.now(), sender, identity, groupID } = input;
    const { membershipVersion, membershipStateHash, senderSequence, expiresAt = 0 } = input;
    const sorted = [...input.recipients].sort((a, b) => compareBytes(a.token.bytes, b.token.bytes));
    const parsed = await Promise.all(sorted.map((recipient) => ParsedPublicKeys.parse(recipient.publicKeys)));
    const contentKey = randomBytes(AESGCM.keySize);
    const nonce = randomBytes(AESGCM.nonceSize);
    const padded = MessagePadding.pad(plaintext);
    try {
        const wrapped = await Promise.all(parsed.map((keys) => encryptOAEP(keys.encryption, contentKey)));
        const slotHashes = await Promise.all(wrapped.map((slot) => sha256(slot)));
        const header = new GroupEnvelopeHeader({
            messageID,
            sender,
            senderFingerprint: identity.fingerprint,
            groupID,
            membershipVersion,
            membershipStateHash,
            senderSequence,
            sentAtMilliseconds: sentAt instanceof Date ? Math.max(0, Math.floor(sentAt.getTime())) : sentAt,
            expiresAtMilliseconds: expiresAt,
            keyCommitment: await keyCommitment(contentKey),
            recipients: sorted.map((recipient, index) => new GroupRecipient({
                token: recipient.token, fingerprint: parsed[index].fingerprint, slotHash: slotHashes[index],
            })),
        });
        const ciphertext = await sealAESGCM({ key: contentKey, nonce, aad: header.encoded, plaintext: padded });
        const envelope = new GroupEnvelope({ header, nonce, ciphertext, signature: new Uint8Array(0) });
        envelope.signature = await identity.sign(envelope.signedBytes);
        const slots = sorted.map((recipient, index) => ({ recipient: recipient.token, wrappedKey: wrapped[index] }));
        return { envelope, slots };
    } finally {
        wipe(contentKey);
        wipe(padded);
    }
}

/**
 * Checks, decrypts and unpads a group message with the opener's own slot.
 *
 * Order: structure → the opener's token is listed with its key fingerprint (`notForMe`) → the header's sender
 * fingerprint is that of `senderKeys` (`senderKeyMismatch`) → signature (`badSignature`) → SHA-256 of the slot is the
 * opener's entry hash (`badSignature`, before RSA sees it) → OAEP, 32 bytes, key commitment, GCM (`decryptionFailed`)
 * → padding (`malformed`).
 * @param {GroupEnvelope} envelope
 * @param {{slot: Uint8Array, recipient: import('./token.js').Token, identity: import('./keys.js').IdentityKeys,
 *   senderKeys: import('./keys.js').PublicKeys}} opener
 * @returns {Promise<OpenedGroupMessage>}
 */
export async function openGroupEnvelope(envelope, { slot, recipient, identity, senderKeys }) {
    const { header } = envelope;
    checkStructure(envelope);
    const entry = header.recipient(recipient);
    if (entry === null || !constantTimeEqual(entry.fingerprint.bytes, identity.fingerprint.bytes)) {
        throw new CryptoError(CryptoErrorCode.notForMe,
            `group envelope ${header.messageID} does not list this account and key`);
    }
    await verifyGroupEnvelopeSignature(envelope, senderKeys);
    if (!(slot instanceof Uint8Array) || !constantTimeEqual(await sha256(slot), entry.slotHash)) {
        throw new CryptoError(CryptoErrorCode.badSignature,
            `the wrapped key of group envelope ${header.messageID} is not the one its sender signed`);
    }
    const failure = new CryptoError(CryptoErrorCode.decryptionFailed,
        `group envelope ${header.messageID} does not decrypt`);
    let contentKey;
    try {
        contentKey = await identity.decrypt(slot);
    } catch {
        throw failure;
    }
    try {
        if (contentKey.length !== AESGCM.keySize) throw failure;
        if (!constantTimeEqual(await keyCommitment(contentKey), header.keyCommitment)) throw failure;
        const padded = await openAESGCM({
            key: contentKey, nonce: envelope.nonce, aad: header.encoded, ciphertext: envelope.ciphertext, failure,
        });
        try {
            return new OpenedGroupMessage(MessagePadding.unpad(padded), header);
        } finally {
            wipe(padded);
        }
    } finally {
        wipe(contentKey);
    }
}

/**
 * The header's sender fingerprint is that of `senderKeys`, and the signature verifies under its signing key.
 * @throws {CryptoError} `senderKeyMismatch`, `badSignature`, `invalidKey`; {DomainError} for a bad structure
 */
export async function verifyGroupEnvelopeSignature(envelope, senderKeys) {
    const { header } = envelope;
    checkStructure(envelope);
    const sender = await ParsedPublicKeys.parse(senderKeys);
    if (!constantTimeEqual(header.senderFingerprint.bytes, sender.fingerprint.bytes)) {
        throw new CryptoError(CryptoErrorCode.senderKeyMismatch,
            `group envelope ${header.messageID} names sender key ${header.senderFingerprint.grouped}, `
                + `not the given key ${sender.fingerprint.grouped}`);
    }
    const fits = envelope.ciphertext.length <= 0xffffffff;
    const verified = envelope.signature.length === RSAParameters.modulusSize && fits
        && (await verifyPSS(sender.signing, envelope.signature, envelope.signedBytes));
    if (!verified) {
        throw new CryptoError(CryptoErrorCode.badSignature,
            `group envelope ${header.messageID} signature does not verify`);
    }
}

/**
 * What the relay checks before storing (`GroupEnvelope.verifyForRelay`): the signature, then exactly one 256-byte slot
 * per listed recipient, in header order, whose SHA-256 is that entry's hash.
 * @param {Array<{recipient: import('./token.js').Token, wrappedKey: Uint8Array}>} slots
 * @throws {CryptoError} `malformed` for slots that do not match the list, `badSignature` for a slot that is not the
 *   signed one, and what `verifyGroupEnvelopeSignature` throws
 */
export async function verifyGroupEnvelopeForRelay(envelope, senderKeys, slots) {
    await verifyGroupEnvelopeSignature(envelope, senderKeys);
    const entries = envelope.header.recipients;
    if (slots.length !== entries.length) {
        throw new CryptoError(CryptoErrorCode.malformed,
            `group envelope lists ${entries.length} recipients but carries ${slots.length} slots`);
    }
    for (let i = 0; i < entries.length; i++) {
        const { recipient, wrappedKey } = slots[i];
        if (!recipient.equals(entries[i].token) || wrappedKey.length !== GroupEnvelope.slotSize) {
            throw new CryptoError(CryptoErrorCode.malformed,
                `group slot for ${recipient} must be 256 bytes, in the header's order (expected ${entries[i].token})`);
        }
        if (!constantTimeEqual(await sha256(wrappedKey), entries[i].slotHash)) {
            throw new CryptoError(CryptoErrorCode.badSignature,
                `group slot for ${recipient} is not the one the sender signed`);
        }
    }
}

function checkStructure(envelope) {
    envelope.header.validate();
    if (envelope.nonce.length !== GroupEnvelope.nonceSize) {
        throw new CryptoError(CryptoErrorCode.malformed,
            `group envelope nonce is ${envelope.nonce.length} bytes (must be 12)`);
    }
}

/** A group envelope that was verified and decrypted: its plaintext and the signed header that vouches for it. */
export class OpenedGroupMessage {
    constructor(plaintext, header) {
        /** The message bytes, padding removed. */
        this.plaintext = plaintext;
        /** The verified header: group, membership state, sender sequence and the whole recipient list. */
        this.header = header;
    }

    get sender() {
        return this.header.sender;
    }

    get groupID() {
        return this.header.groupID;
    }

    get messageID() {
        return this.header.messageID;
    }

    /** Never shows the plaintext. */
    toString() {
        return `OpenedGroupMessage(id ${this.messageID}, group ${this.groupID}, from ${this.sender}, `
            + `${this.plaintext.length} bytes)`;
    }
}
