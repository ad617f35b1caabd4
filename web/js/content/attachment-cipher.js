/**
 * Attachment encryption (v2-spec §5), before the relay's blob API carries it: a file key K of 32 random bytes; the
 * plaintext cut into chunks of `chunkSize` (65,536) bytes, n = max(1, ceil(size / chunkSize)) of them (an empty file
 * is one empty final chunk); chunk i sealed with AES-256-GCM under K, nonce `u64(i) || u8(final ? 1 : 0) || 00 00 00`
 * and associated data `"wots-attachment-v1" || 0x00`, written as ciphertext || tag. The blob is their concatenation
 * (size + 16·n bytes); `digest` is the SHA-256 of the whole blob, in hex.
 *
 * Opening checks the size, the digest, then every chunk's tag, and that the last chunk carries the final flag, so a
 * truncated, extended or reordered blob fails. Every failure is `attachment_corrupt`.
 */

import {
    ByteWriter, concatBytes, constantTimeEqual, fromBase64, label, randomBytes, toBase64, toHex, utf8,
} from '../crypto/bytes.js';
import { sha256 } from '../crypto/sha.js';

export const AttachmentCipher = Object.freeze({
    chunkSize: 65536,
    tagSize: 16,
    associatedData: label('wots-attachment-v1'),

    /** The 12-byte nonce of chunk `index`; `final` for the last one. */
    nonce(index, final) {
        return new ByteWriter().writeU64(BigInt(index)).writeU8(final ? 1 : 0).write(new Uint8Array(3)).bytes;
    },

    /** How many chunks a plaintext of `size` bytes makes. */
    chunkCount(size, chunkSize = AttachmentCipher.chunkSize) {
        return Math.max(1, Math.ceil(size / chunkSize));
    },

    /**
     * Encrypts a file.
     * @param {Uint8Array} plaintext
     * @returns {Promise<{blob: Uint8Array, key: string, digest: string, size: number, chunkSize: number}>} `key` in
     *   standard base64 and `digest` in hex, as the `attachment` content carries them
     */
    async seal(plaintext, { key = randomBytes(32), chunkSize = AttachmentCipher.chunkSize } = {}) {
        const cryptoKey = await importKey(key, 'encrypt');
        const count = AttachmentCipher.chunkCount(plaintext.length, chunkSize);
        const chunks = [];
        for (let index = 0; index < count; index++) {
            const part = plaintext.subarray(index * chunkSize, Math.min(plaintext.length, (index + 1) * chunkSize));
            const algorithm = { name: 'AES-GCM', iv: AttachmentCipher.nonce(index, index === count - 1),
                additionalData: AttachmentCipher.associatedData, tagLength: 128 };
            chunks.push(new Uint8Array(await crypto.subtle.encrypt(algorithm, cryptoKey, part)));
        }
        const blob = concatBytes(...chunks);
        return { blob, key: toBase64(key), digest: toHex(await sha256(blob)), size: plaintext.length, chunkSize };
    },

    /**
     * Decrypts a blob against its `attachment` reference (`key`, `digest`, `size`, `chunkSize`).
     * @returns {Promise<Uint8Array>} the plaintext
     * @throws {AttachmentCorrupt} on any mismatch
     */
    async open(blob, { key, digest, size, chunkSize }) {
        const keyBytes = fromBase64(key);
        if (keyBytes === null || keyBytes.length !== 32) throw corrupt('the attachment key is not 32 bytes');
        const count = AttachmentCipher.chunkCount(size, chunkSize);
        const expected = size + AttachmentCipher.tagSize * count;
        if (blob.length !== expected) throw corrupt(`the blob is ${blob.length} bytes, not ${expected}`);
        if (!constantTimeEqual(utf8(toHex(await sha256(blob))), utf8(String(digest)))) {
            throw corrupt('the blob does not match its digest');
        }
        const cryptoKey = await importKey(keyBytes, 'decrypt');
        const plaintext = new Uint8Array(size);
        const sealedChunk = chunkSize + AttachmentCipher.tagSize;
        for (let index = 0; index < count; index++) {
            const part = blob.subarray(index * sealedChunk, Math.min(blob.length, (index + 1) * sealedChunk));
            const algorithm = { name: 'AES-GCM', iv: AttachmentCipher.nonce(index, index === count - 1),
                additionalData: AttachmentCipher.associatedData, tagLength: 128 };
            try {
                const opened = await crypto.subtle.decrypt(algorithm, cryptoKey, part);
                plaintext.set(new Uint8Array(opened), index * chunkSize);
            } catch {
                throw corrupt(`chunk ${index} of ${count} does not decrypt (changed, moved, or not the final chunk)`);
            }
        }
        return plaintext;
    },
});

/** The one failure of opening an attachment. */
export class AttachmentCorrupt extends Error {
    constructor(reason) {
        super(reason);
        this.name = 'AttachmentCorrupt';
        this.code = 'attachment_corrupt';
    }
}

function corrupt(reason) {
    return new AttachmentCorrupt(reason);
}

function importKey(bytes, use) {
    return crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, [use]);
}
