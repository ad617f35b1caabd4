/**
 * Moving an encrypted attachment through the relay's blob API (v2-spec §4), as WotsClient's
 * `RelayClient.uploadBlob`/`downloadBlob`: uploads go in PATCH requests of at most 1 MiB from the offset the relay
 * holds; a refused (`blob_offset_mismatch`) or cut-off chunk asks the relay where it stands (`HEAD`) and goes on
 * from there, up to `retries` times in a row. Downloads resume with `Range` from the bytes already received.
 */

import { concatBytes } from '../crypto/bytes.js';
import { RelayError } from './relay-error.js';

export const BlobTransfer = Object.freeze({
    /** Bytes one PATCH carries: the relay stores each as one chunk row. */
    uploadChunkSize: 1 << 20,
    /** Failures in a row before a transfer gives up. */
    retries: 5,

    /**
     * Announces and uploads `blob` for `recipients`.
     * @param {import('./relay-client.js').RelayClient} relay
     * @param {(done: number, total: number) => void} [onProgress]
     * @param {number} [expiresAt] milliseconds: when the relay deletes the blob (its disappearing message's expiry)
     * @returns {Promise<string>} the blob id
     */
    async send(relay, blob, recipients, onProgress, expiresAt) {
        const { id } = await relay.createBlob({ size: blob.length, recipients, expiresAt });
        await BlobTransfer.upload(relay, id, blob, { onProgress });
        return id;
    },

    /** Uploads `blob` to blob `id` from the offset the relay holds. */
    async upload(relay, id, blob, { onProgress, chunkSize = BlobTransfer.uploadChunkSize } = {}) {
        let { offset } = await relay.blobOffset(id);
        let failures = 0;
        onProgress?.(offset, blob.length);
        while (offset < blob.length) {
            const chunk = blob.subarray(offset, Math.min(blob.length, offset + chunkSize));
            try {
                offset = await relay.uploadChunk(id, chunk, offset);
                failures = 0;
                onProgress?.(offset, blob.length);
            } catch (error) {
                if (!isResumable(error) || failures >= BlobTransfer.retries) throw error;
                failures += 1;
                offset = (await relay.blobOffset(id)).offset;
            }
        }
        if (offset !== blob.length) {
            const reason = `the relay holds ${offset} bytes of blob ${id}, not ${blob.length}`;
            throw new RelayError('invalid_response', reason);
        }
    },

    /**
     * Downloads blob `id`, `size` bytes (what the message announced: a longer answer is refused), resuming with
     * `Range` after a cut.
     */
    async download(relay, id, size) {
        const parts = [];
        let received = 0;
        let failures = 0;
        while (received < size) {
            try {
                const bytes = await relay.downloadBlob(id, { from: received });
                if (bytes.length === 0) throw new RelayError('relay_unreachable', `blob ${id} answered no bytes`);
                parts.push(bytes);
                received += bytes.length;
                failures = 0;
            } catch (error) {
                if (!isResumable(error) || failures >= BlobTransfer.retries) throw error;
                failures += 1;
            }
        }
        if (received > size) {
            throw new RelayError('attachment_corrupt', `blob ${id} is longer than its ${size} bytes`);
        }
        return concatBytes(...parts);
    },
});

/** A cut connection, a server hiccup or a chunk at the wrong offset: worth asking again. */
function isResumable(error) {
    return error?.code === 'relay_unreachable' || error?.code === 'blob_offset_mismatch' || error?.status >= 500;
}
