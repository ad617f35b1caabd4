/**
 * A sealed, signed message (SECURITY.md "Envelopes"): its fields, the canonical binary form, the signed bytes and
 * the relay's JSON form. Sealing and opening are in envelope-sealing.js.
 */

import { ByteReader, ByteWriter, concatBytes, fromBase64, label, toBase64 } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { EnvelopeHeader, checkVersion, checkedSentAt } from './envelope-header.js';
import { Fingerprint } from './fingerprint.js';
import { Token } from './token.js';

export class Envelope {
    /** Domain-separation label that starts a version 1 envelope's signed bytes (the zero byte included). */
    static signatureLabel = label('wots-envelope-v1');
    /** The same for version 2. */
    static signatureLabelV2 = label('wots-envelope-v2');

    /** The label that starts the signed bytes of an envelope of `version`. */
    static signatureLabelOf(version) {
        return version === 1 ? Envelope.signatureLabel : Envelope.signatureLabelV2;
    }
    static nonceSize = 12;

    /**
     * @param {{header: EnvelopeHeader, wrappedKey: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array,
     *   signature: Uint8Array}} fields `ciphertext` includes the 16-byte GCM tag
     */
    constructor({ header, wrappedKey, nonce, ciphertext, signature }) {
        this.header = header;
        this.wrappedKey = wrappedKey;
        this.nonce = nonce;
        this.ciphertext = ciphertext;
        this.signature = signature;
    }

    /** Header, then the length-prefixed wrapped key, nonce and ciphertext: everything but the signature. */
    get unsignedBody() {
        return new ByteWriter()
            .write(this.header.encoded)
            .writeU16Prefixed(this.wrappedKey)
            .writeU16Prefixed(this.nonce)
            .writeU32Prefixed(this.ciphertext).bytes;
    }

    /** What the sender signs: label and zero byte, then the binary form without its signature field. */
    get signedBytes() {
        return concatBytes(Envelope.signatureLabelOf(this.header.version), this.unsignedBody);
    }

    /** The canonical binary form. */
    get serialized() {
        return new ByteWriter().write(this.unsignedBody).writeU16Prefixed(this.signature).bytes;
    }

    /**
     * Parses the canonical binary form. Checks structure only; envelope-sealing.js checks the signature.
     * @param {Uint8Array} bytes
     * @returns {Envelope}
     * @throws {DomainError} `malformedEnvelope`, `unsupportedVersion` or `sentAtOutOfRange` saying what is wrong
     */
    static fromSerialized(bytes) {
        const reader = new ByteReader(bytes);
        const header = EnvelopeHeader.read(reader);
        const wrappedKey = reader.readU16Prefixed();
        if (wrappedKey === null) throw malformed('envelope ends inside the wrapped key');
        const nonce = reader.readU16Prefixed();
        if (nonce === null) throw malformed('envelope ends inside the nonce');
        checkNonce(nonce);
        const ciphertext = reader.readU32Prefixed();
        if (ciphertext === null) throw malformed('envelope ends inside the ciphertext');
        const signature = reader.readU16Prefixed();
        if (signature === null) throw malformed('envelope ends inside the signature');
        if (reader.remaining !== 0) throw malformed(`envelope has ${reader.remaining} trailing bytes`);
        return new Envelope({ header, wrappedKey, nonce, ciphertext, signature });
    }

    /**
     * The relay API's JSON form. `sentAt` is a JSON number: the header bounds it to 2^53 − 1, which a JavaScript
     * number carries exactly.
     */
    toJSON() {
        const { header } = this;
        const json = {
            version: header.version,
            id: header.messageID,
            sender: header.sender.toString(),
            senderFingerprint: header.senderFingerprint.hex,
            recipient: header.recipient.toString(),
            recipientFingerprint: header.recipientFingerprint.hex,
            sentAt: Number(header.sentAtMilliseconds),
            wrappedKey: toBase64(this.wrappedKey),
            nonce: toBase64(this.nonce),
            ciphertext: toBase64(this.ciphertext),
            signature: toBase64(this.signature),
        };
        if (header.version >= 2) json.expiresAt = Number(header.expiresAtMilliseconds);
        return json;
    }

    /**
     * Reads the JSON form (an object already parsed from JSON text).
     * @throws {DomainError} `unsupportedVersion`, `malformedEnvelope`, `sentAtOutOfRange`, `invalidToken` or
     *   `invalidFingerprint`
     */
    static fromJSON(json) {
        if (json === null || typeof json !== 'object') throw malformed('envelope JSON is not an object');
        if (!Number.isInteger(json.version)) throw malformed('envelope JSON has no integer version');
        checkVersion(json.version);
        // A JSON number above 2^53 − 1 may have been rounded on the way in; it is refused, never rounded again.
        const sentAt = checkedSentAt(json.sentAt);
        if (json.version === 1 && json.expiresAt !== undefined) {
            throw malformed('a version 1 envelope has no expiresAt');
        }
        if (json.version >= 2 && json.expiresAt === undefined) throw malformed('a version 2 envelope needs expiresAt');
        const header = new EnvelopeHeader({
            version: json.version,
            messageID: json.id,
            sender: Token.parse(json.sender),
            senderFingerprint: Fingerprint.fromHex(strictHex(json.senderFingerprint)),
            recipient: Token.parse(json.recipient),
            recipientFingerprint: Fingerprint.fromHex(strictHex(json.recipientFingerprint)),
            sentAtMilliseconds: sentAt,
            expiresAtMilliseconds: json.version >= 2 ? checkedSentAt(json.expiresAt) : 0n,
        });
        const base64Field = (key) => {
            const bytes = fromBase64(json[key]);
            if (bytes === null) throw malformed(`envelope ${key} is not standard base64`);
            return bytes;
        };
        const wrappedKey = base64Field('wrappedKey');
        const nonce = base64Field('nonce');
        const ciphertext = base64Field('ciphertext');
        const signature = base64Field('signature');
        checkNonce(nonce);
        if (wrappedKey.length > 0xffff || signature.length > 0xffff || ciphertext.length > 0xffffffff) {
            throw malformed('envelope field longer than its length prefix allows');
        }
        return new Envelope({ header, wrappedKey, nonce, ciphertext, signature });
    }
}

function checkNonce(nonce) {
    if (nonce.length !== Envelope.nonceSize) throw malformed(`envelope nonce is ${nonce.length} bytes (must be 12)`);
}

/** The wire spelling is exactly 64 hex digits, without the spaces people read. */
function strictHex(text) {
    if (typeof text !== 'string' || !/^[0-9a-fA-F]{64}$/.test(text)) {
        throw new DomainError(
            DomainErrorCode.invalidFingerprint,
            `fingerprint "${String(text).slice(0, 80)}" is not 64 hex digits`,
        );
    }
    return text;
}

function malformed(reason) {
    return new DomainError(DomainErrorCode.malformedEnvelope, reason);
}
