import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { BlobTransfer } from '../js/protocol/blob-transfer.js';
import { RelayError } from '../js/protocol/relay-error.js';

/**
 * The blob API's rules in memory (v2-spec §4), with faults the test plays: a chunk that the relay stores but whose
 * answer is lost, and a chunk refused as sent at the wrong offset. The browser test runs the real relay.
 */
class MemoryBlobs {
    constructor() {
        this.stored = new Uint8Array(0);
        this.size = 0;
        this.faults = [];
        this.patches = [];
        this.heads = 0;
    }

    async createBlob({ size, recipients }) {
        assert.ok(recipients.length >= 1);
        this.size = size;
        return { id: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', size, received: 0 };
    }

    async blobOffset() {
        this.heads += 1;
        return { offset: this.stored.length, length: this.size };
    }

    async uploadChunk(id, bytes, offset) {
        this.patches.push({ offset, length: bytes.length });
        const fault = this.faults.shift();
        if (fault === 'mismatch' || offset !== this.stored.length) {
            throw new RelayError('blob_offset_mismatch', `offset ${offset} is not ${this.stored.length}`, 409);
        }
        const next = new Uint8Array(this.stored.length + bytes.length);
        next.set(this.stored);
        next.set(bytes, this.stored.length);
        this.stored = next;
        if (fault === 'lost answer') throw new RelayError('relay_unreachable', 'the connection was cut');
        return this.stored.length;
    }

    async downloadBlob(id, { from }) {
        const fault = this.faults.shift();
        if (fault === 'cut') throw new RelayError('relay_unreachable', 'the connection was cut');
        const end = fault === 'short' ? Math.min(this.stored.length, from + 10) : this.stored.length;
        return this.stored.slice(from, end);
    }
}

const bytesOf = (size) => Uint8Array.from({ length: size }, (_, index) => (index * 13 + 5) & 0xff);

describe('BlobTransfer (v2-spec §4)', () => {
    test('uploads in chunks of at most the chunk size, reporting progress up to the whole blob', async () => {
        const relay = new MemoryBlobs();
        const progress = [];
        const blob = bytesOf(2500);
        const id = await BlobTransfer.send(relay, blob, ['token'], (done, total) => progress.push([done, total]));
        assert.equal(id, 'aaaaaaaaaaaaaaaaaaaaaaaaaa');
        assert.deepEqual(relay.stored, blob);
        assert.equal(relay.patches.length, 1, 'the default chunk is 1 MiB');
        relay.stored = new Uint8Array(0);
        relay.patches = [];
        await BlobTransfer.upload(relay, id, blob, { chunkSize: 1000 });
        assert.deepEqual(relay.patches.map((patch) => patch.length), [1000, 1000, 500]);
        assert.deepEqual(progress.at(-1), [2500, 2500]);
    });

    test('a chunk whose answer was lost is not sent twice: the upload asks HEAD and goes on from there', async () => {
        const relay = new MemoryBlobs();
        relay.size = 2500;
        relay.faults = [undefined, 'lost answer'];
        await BlobTransfer.upload(relay, 'id', bytesOf(2500), { chunkSize: 1000 });
        assert.deepEqual(relay.stored, bytesOf(2500));
        assert.deepEqual(relay.patches.map((patch) => patch.offset), [0, 1000, 2000]);
        assert.equal(relay.heads, 2, 'one HEAD to start, one after the cut');
    });

    test('a 409 offset mismatch resumes from the relay\'s offset; too many failures in a row give up', async () => {
        const relay = new MemoryBlobs();
        relay.size = 1500;
        relay.faults = ['mismatch'];
        await BlobTransfer.upload(relay, 'id', bytesOf(1500), { chunkSize: 1000 });
        assert.deepEqual(relay.stored, bytesOf(1500));
        const stuck = new MemoryBlobs();
        stuck.size = 10;
        stuck.faults = Array(BlobTransfer.retries + 1).fill('mismatch');
        await assert.rejects(BlobTransfer.upload(stuck, 'id', bytesOf(10)), { code: 'blob_offset_mismatch' });
        assert.equal(stuck.patches.length, BlobTransfer.retries + 1);
    });

    test('a refusal that asking again cannot fix (unknown_blob) fails at once', async () => {
        const relay = new MemoryBlobs();
        relay.size = 10;
        relay.uploadChunk = async () => { throw new RelayError('unknown_blob', 'no blob', 404); };
        await assert.rejects(BlobTransfer.upload(relay, 'id', bytesOf(10)), { code: 'unknown_blob' });
        assert.equal(relay.heads, 1);
    });

    test('a download resumes with a Range after a cut and a short answer, and refuses more than announced', async () => {
        const relay = new MemoryBlobs();
        relay.stored = bytesOf(100);
        relay.faults = ['short', 'cut'];
        assert.deepEqual(await BlobTransfer.download(relay, 'id', 100), bytesOf(100));
        await assert.rejects(BlobTransfer.download(relay, 'id', 60), { code: 'attachment_corrupt' });
    });
});
