import assert from 'node:assert/strict';
import { createCipheriv, createHash } from 'node:crypto';
import { describe, test } from 'node:test';

import { AttachmentCipher } from '../js/content/attachment-cipher.js';

const corrupt = (error) => error.code === 'attachment_corrupt';
const fileOf = (size) => Uint8Array.from({ length: size }, (_, index) => (index * 31 + 7) & 0xff);
const small = { chunkSize: 4096 };

describe('attachment encryption (v2-spec §5)', () => {
    test('sizes: n = max(1, ceil(size / chunkSize)) chunks, blob = size + 16·n, an empty file is one empty chunk', async () => {
        for (const [size, chunks] of [[0, 1], [1, 1], [4096, 1], [4097, 2], [3 * 4096, 3]]) {
            const sealed = await AttachmentCipher.seal(fileOf(size), small);
            assert.equal(sealed.blob.length, size + 16 * chunks, `${size} bytes`);
            assert.deepEqual(await AttachmentCipher.open(sealed.blob, sealed), fileOf(size));
        }
        const defaults = await AttachmentCipher.seal(fileOf(65537));
        assert.equal(defaults.chunkSize, 65536);
        assert.equal(defaults.blob.length, 65537 + 32);
    });

    test('each chunk is AES-256-GCM with nonce u64(i) || final || 000000 and AAD "wots-attachment-v1\\0" (checked with node:crypto)', async () => {
        const key = new Uint8Array(32).fill(5);
        const file = fileOf(4096 + 10);
        const sealed = await AttachmentCipher.seal(file, { ...small, key });
        const chunk = (index, final, part) => {
            const nonce = Buffer.alloc(12);
            nonce.writeBigUInt64BE(BigInt(index));
            nonce[8] = final ? 1 : 0;
            const cipher = createCipheriv('aes-256-gcm', key, nonce);
            cipher.setAAD(Buffer.from('wots-attachment-v1\0'));
            return Buffer.concat([cipher.update(part), cipher.final(), cipher.getAuthTag()]);
        };
        const expected = Buffer.concat([chunk(0, false, file.subarray(0, 4096)), chunk(1, true, file.subarray(4096))]);
        assert.deepEqual(Buffer.from(sealed.blob), expected);
        assert.equal(sealed.digest, createHash('sha256').update(expected).digest('hex'));
    });

    test('truncation, reordering, a changed byte, a wrong digest or size: attachment_corrupt', async () => {
        const sealed = await AttachmentCipher.seal(fileOf(3 * 4096), small);
        const sealedChunk = 4096 + 16;
        const withDigest = async (blob) => ({
            ...sealed, digest: Buffer.from(await crypto.subtle.digest('SHA-256', blob)).toString('hex'),
        });
        // Dropping the final chunk: a shorter file whose last chunk lacks the final flag.
        const truncated = sealed.blob.subarray(0, 2 * sealedChunk);
        const shorter = { ...(await withDigest(truncated)), size: 2 * 4096 };
        await assert.rejects(AttachmentCipher.open(truncated, shorter), corrupt);
        const swapped = new Uint8Array(sealed.blob);
        swapped.set(sealed.blob.subarray(sealedChunk, 2 * sealedChunk), 0);
        swapped.set(sealed.blob.subarray(0, sealedChunk), sealedChunk);
        await assert.rejects(AttachmentCipher.open(swapped, await withDigest(swapped)), corrupt);
        const flipped = new Uint8Array(sealed.blob);
        flipped[100] ^= 1;
        await assert.rejects(AttachmentCipher.open(flipped, sealed), corrupt, 'the digest catches it');
        await assert.rejects(AttachmentCipher.open(flipped, await withDigest(flipped)), corrupt, 'and so does the tag');
        await assert.rejects(AttachmentCipher.open(sealed.blob, { ...sealed, size: 3 * 4096 - 1 }), corrupt);
        await assert.rejects(AttachmentCipher.open(sealed.blob, { ...sealed, key: Buffer.alloc(32).toString('base64') }), corrupt);
    });
});
