/**
 * The body of a group message (SECURITY.md, "Group envelope (version 3)"): encrypted once, signed once, stored once by
 * the relay; each recipient's slot (its wrapped content key) travels beside it. Fields, the canonical binary form and
 * the signed bytes, as WotsCore's `GroupEnvelope`; sealing and opening are in group-envelope-sealing.js.
 */

import { ByteReader, ByteWriter, concatBytes, label } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { GroupEnvelopeHeader } from './group-envelope-header.js';

export class GroupEnvelope {
    /** Domain-separation label of the signed bytes (the zero byte included). */
    static signatureLabel = label('wots-group-v1');
    /** Domain-separation label of the key commitment (the zero byte included). */
    static keyCommitmentLabel = label('wots-group-key-v1');
    /** Every slot is one RSA-2048 OAEP ciphertext. */
    static slotSize = 256;
    static nonceSize = 12;

    /**
     * @param {{header: GroupEnvelopeHeader, nonce: Uint8Array, ciphertext: Uint8Array, signature: Uint8Array}} fields
     *   `ciphertext` includes the 16-byte GCM tag
     */
    constructor({ header, nonce, ciphertext, signature }) {
        this.header = header;
        this.nonce = nonce;
        this.ciphertext = ciphertext;
        this.signature = signature;
    }

    /** Header, then the length-prefixed nonce and ciphertext: everything but the signature. */
    get unsignedBody() {
        return new ByteWriter()
            .write(this.header.encoded)
            .writeU16Prefixed(this.nonce)
            .writeU32Prefixed(this.ciphertext).bytes;
    }

    /** What the sender signs: `"wots-group-v1" || 0x00 || header || u16-bytes(nonce) || u32-bytes(ciphertext)`. */
    get signedBytes() {
        return concatBytes(GroupEnvelope.signatureLabel, this.unsignedBody);
    }

    /** The canonical binary form: the unsigned body, then `u16-bytes(signature)`. */
    get serialized() {
        return new ByteWriter().write(this.unsignedBody).writeU16Prefixed(this.signature).bytes;
    }

    /**
     * Parses the binary form. Checks structure only; group-envelope-sealing.js checks the signature.
     * @throws {DomainError} `malformedEnvelope`, `unsupportedVersion` or `sentAtOutOfRange` saying what is wrong
     */
    static fromSerialized(bytes) {
        const reader = new ByteReader(bytes);
        const header = GroupEnvelopeHeader.read(reader);
        const nonce = reader.readU16Prefixed();
        if (nonce === null) throw malformed('group envelope ends inside the nonce');
        if (nonce.length !== GroupEnvelope.nonceSize) {
            throw malformed(`group envelope nonce is ${nonce.length} bytes (must be 12)`);
        }
        const ciphertext = reader.readU32Prefixed();
        if (ciphertext === null) throw malformed('group envelope ends inside the ciphertext');
        const signature = reader.readU16Prefixed();
        if (signature === null) throw malformed('group envelope ends inside the signature');
        if (reader.remaining !== 0) throw malformed(`group envelope has ${reader.remaining} trailing bytes`);
        return new GroupEnvelope({ header, nonce, ciphertext, signature });
    }
}

function malformed(reason) {
    return new DomainError(DomainErrorCode.malformedEnvelope, reason);
}
