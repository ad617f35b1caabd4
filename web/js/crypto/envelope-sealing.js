/**
 * Sealing and opening envelopes (SECURITY.md "Sealing" and "Opening"), with the opening checks in the order the
 * spec fixes and nothing decrypted before the signature verifies.
 */

import { constantTimeEqual, fromUTF8, randomBytes, wipe } from './bytes.js';
import { AESGCM, openAESGCM, sealAESGCM } from './aes-gcm.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { Envelope } from './envelope.js';
import { EnvelopeHeader } from './envelope-header.js';
import { ParsedPublicKeys } from './keys.js';
import { MessagePadding } from './message-padding.js';
import { newMessageID } from './message-id.js';
import { encryptOAEP, RSAParameters, verifyPSS } from './rsa.js';

/**
 * Encrypts `plaintext` for one recipient and signs the result with the sender's signing key.
 * @param {object} input
 * @param {Uint8Array} input.plaintext
 * @param {string} [input.messageID] default a fresh random UUID
 * @param {bigint | number | Date} [input.sentAt] default now, stored in milliseconds
 * @param {import('./token.js').Token} input.sender the sender's token
 * @param {import('./keys.js').IdentityKeys} input.identity the sender's private keys
 * @param {import('./token.js').Token} input.recipient
 * @param {import('./keys.js').PublicKeys} input.recipientKeys as the directory published them (and the user verified)
 * @param {number} [input.version] default `EnvelopeHeader.currentVersion` (2); 1 for a relay that reads only v1
 * @param {bigint | number} [input.expiresAt] version 2: milliseconds when it vanishes, default 0 (never)
 * @returns {Promise<Envelope>}
 * @throws {CryptoError} `invalidKey` for unusable recipient keys
 */
export async function sealEnvelope(input) {
    const {
        plaintext,
        messageID = newMessageID(),
        sentAt = Date.now(),
        sender,
        identity,
        recipient,
        recipientKeys,
        version = EnvelopeHeader.currentVersion,
        expiresAt = 0,
    } = input;
    const recipientParsed = await ParsedPublicKeys.parse(recipientKeys);
    const header = new EnvelopeHeader({
        version,
        messageID,
        sender,
        senderFingerprint: identity.fingerprint,
        recipient,
        recipientFingerprint: recipientParsed.fingerprint,
        sentAtMilliseconds: sentAt instanceof Date ? Math.max(0, Math.floor(sentAt.getTime())) : sentAt,
        expiresAtMilliseconds: expiresAt,
    });
    const contentKey = randomBytes(AESGCM.keySize);
    const nonce = randomBytes(AESGCM.nonceSize);
    const padded = MessagePadding.pad(plaintext);
    try {
        const ciphertext = await sealAESGCM({ key: contentKey, nonce, aad: header.encoded, plaintext: padded });
        const wrappedKey = await encryptOAEP(recipientParsed.encryption, contentKey);
        const envelope = new Envelope({ header, wrappedKey, nonce, ciphertext, signature: new Uint8Array(0) });
        envelope.signature = await identity.sign(envelope.signedBytes);
        return envelope;
    } finally {
        wipe(contentKey);
        wipe(padded);
    }
}

/**
 * Checks who the envelope is for and who made it, verifies the signature, then decrypts.
 *
 * Order: version (`unsupportedVersion`) → recipient token and fingerprint name the opener (`notForMe`) → header
 * sender fingerprint is that of `senderKeys` (`senderKeyMismatch`) → signature (`badSignature`) → unwrap and
 * AES-GCM (`decryptionFailed`) → padding (`malformed`).
 * @param {Envelope} envelope
 * @param {object} opener
 * @param {import('./token.js').Token} opener.recipient the opener's own token
 * @param {import('./keys.js').IdentityKeys} opener.identity the opener's private keys
 * @param {import('./keys.js').PublicKeys} opener.senderKeys the keys of `header.sender` as the opener knows them
 * @returns {Promise<OpenedMessage>}
 * @throws {CryptoError} with the code of the first check that failed
 */
export async function openEnvelope(envelope, { recipient, identity, senderKeys }) {
    const { header } = envelope;
    checkVersion(header);
    const forMe = header.recipient.equals(recipient)
        && constantTimeEqual(header.recipientFingerprint.bytes, identity.fingerprint.bytes);
    if (!forMe) {
        throw new CryptoError(
            CryptoErrorCode.notForMe,
            `envelope ${header.messageID} is addressed to another recipient or key`,
        );
    }
    await verifyEnvelopeSignature(envelope, senderKeys);
    if (envelope.nonce.length !== AESGCM.nonceSize) {
        throw new CryptoError(
            CryptoErrorCode.malformed,
            `envelope nonce is ${envelope.nonce.length} bytes (must be 12)`,
        );
    }
    const contentKey = await identity.decrypt(envelope.wrappedKey);
    try {
        if (contentKey.length !== AESGCM.keySize) {
            throw new CryptoError(
                CryptoErrorCode.decryptionFailed,
                `the wrapped content key is ${contentKey.length} bytes (must be 32)`,
            );
        }
        const failure = new CryptoError(
            CryptoErrorCode.decryptionFailed,
            `envelope ${header.messageID} does not decrypt (GCM tag mismatch)`,
        );
        const { nonce, ciphertext } = envelope;
        const padded = await openAESGCM({ key: contentKey, nonce, aad: header.encoded, ciphertext, failure });
        try {
            return new OpenedMessage(MessagePadding.unpad(padded), header);
        } finally {
            wipe(padded);
        }
    } finally {
        wipe(contentKey);
    }
}

/**
 * Checks that the header's sender fingerprint is that of `senderKeys` and that the signature verifies under the
 * sender's signing key: what the relay does before accepting an envelope.
 * @throws {CryptoError} `unsupportedVersion`, `senderKeyMismatch`, `badSignature`, or `invalidKey` for unusable keys
 */
export async function verifyEnvelopeSignature(envelope, senderKeys) {
    const { header } = envelope;
    checkVersion(header);
    const sender = await ParsedPublicKeys.parse(senderKeys);
    if (!constantTimeEqual(header.senderFingerprint.bytes, sender.fingerprint.bytes)) {
        throw new CryptoError(
            CryptoErrorCode.senderKeyMismatch,
            `envelope ${header.messageID} names sender key ${header.senderFingerprint.grouped}, `
                + `not the given key ${sender.fingerprint.grouped}`,
        );
    }
    const { wrappedKey, nonce, ciphertext, signature } = envelope;
    // Fields too long for their length prefix have no signed bytes at all.
    const fits = wrappedKey.length <= 0xffff && nonce.length <= 0xffff && ciphertext.length <= 0xffffffff;
    const verified = signature.length === RSAParameters.modulusSize && fits
        && (await verifyPSS(sender.signing, signature, envelope.signedBytes));
    if (!verified) {
        throw new CryptoError(CryptoErrorCode.badSignature, `envelope ${header.messageID} signature does not verify`);
    }
}

function checkVersion(header) {
    if (!EnvelopeHeader.supportedVersions.includes(header.version)) {
        throw new CryptoError(
            CryptoErrorCode.unsupportedVersion,
            `envelope version ${header.version} is not supported `
                + `(only ${EnvelopeHeader.supportedVersions.join(' and ')})`,
        );
    }
}

/** An envelope that was verified and decrypted: its plaintext and the header that vouches for it. */
export class OpenedMessage {
    constructor(plaintext, header) {
        /** The message bytes, padding removed. */
        this.plaintext = plaintext;
        /** The verified header. */
        this.header = header;
    }

    get sender() {
        return this.header.sender;
    }

    get recipient() {
        return this.header.recipient;
    }

    get messageID() {
        return this.header.messageID;
    }

    get sentAt() {
        return this.header.sentAt;
    }

    /** The plaintext as text, or null when it is not valid UTF-8. */
    get text() {
        try {
            return fromUTF8(this.plaintext);
        } catch {
            return null;
        }
    }

    /** Never shows the plaintext. */
    toString() {
        return `OpenedMessage(id ${this.messageID}, from ${this.sender}, ${this.plaintext.length} bytes)`;
    }
}
