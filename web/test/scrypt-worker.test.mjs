import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { handleScryptRequest, attachScryptWorker } from '../js/crypto/scrypt-worker.js';
import { derivedKeys, floorParameters } from '../testing/tools.mjs';

const parameters = floorParameters;
const request = { id: 7, secret: 'worker secret ✓', parameters: parameters.toJSON() };

/** Checks a full reply sequence: progress from 0 to 1 in order, then one result equal to a direct derivation. */
async function assertReplies(replies) {
    const progress = replies.filter((reply) => reply.type === 'progress');
    const results = replies.filter((reply) => reply.type === 'result');
    assert.ok(replies.every((reply) => reply.id === 7), 'every reply carries the request id');
    assert.equal(results.length, 1);
    assert.equal(replies.at(-1).type, 'result', 'the result comes last');
    assert.equal(progress[0].fraction, 0);
    assert.equal(progress.at(-1).fraction, 1);
    assert.ok(progress.length > 10);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].fraction >= progress[i - 1].fraction);
    const direct = await derivedKeys(request.secret, parameters);
    assert.deepEqual(new Uint8Array(results[0].encryptionKey), direct.encryptionKey);
    assert.deepEqual(new Uint8Array(results[0].authenticationKey), direct.authenticationKey);
    assert.deepEqual(new Uint8Array(results[0].secretVerifier), await direct.secretVerifier());
}

describe('the scrypt worker', () => {
    test('posts progress from 0 to 1, then the derived keys', async () => {
        const replies = [];
        await handleScryptRequest(request, (reply) => replies.push(reply));
        await assertReplies(replies);
    });

    test('answers bad requests with an error naming the rule, never throwing', async () => {
        const cases = [
            [{ ...request, parameters: { ...request.parameters, n: 3 } }, 'invalid_key_derivation', /not a power of two/],
            [{ ...request, parameters: { ...request.parameters, n: 1024 } }, 'invalid_key_derivation', /from 2\^15/],
            [{ ...request, parameters: { ...request.parameters, salt: 'AAAA' } }, 'invalid_key_derivation', /salt is 3 bytes/],
            [{ ...request, parameters: undefined }, 'malformed', /base64 salt/],
            [{ ...request, secret: undefined }, 'malformed', /no secret/],
            [null, 'malformed', /base64 salt/],
        ];
        for (const [bad, code, reason] of cases) {
            const replies = [];
            await handleScryptRequest(bad, (reply) => replies.push(reply));
            assert.equal(replies.at(-1).type, 'error');
            assert.equal(replies.at(-1).code, code);
            assert.match(replies.at(-1).reason, reason);
            assert.ok(!replies.some((reply) => reply.type === 'result'));
        }
    });

    test('answers message events of the scope it is attached to', async () => {
        const scope = new EventTarget();
        const replies = [];
        const done = new Promise((resolve) => {
            scope.postMessage = (reply) => {
                replies.push(reply);
                if (reply.type !== 'progress') resolve();
            };
        });
        attachScryptWorker(scope);
        scope.dispatchEvent(new MessageEvent('message', { data: request }));
        await done;
        await assertReplies(replies);
    });

    test('works across a real thread boundary (Node worker thread, structured clone)', { timeout: 30_000 }, async () => {
        const worker = new Worker(new URL('../testing/worker-thread-scope.mjs', import.meta.url));
        try {
            const replies = [];
            await new Promise((resolve, reject) => {
                worker.on('error', reject);
                worker.on('message', (reply) => {
                    replies.push(reply);
                    if (reply.type !== 'progress') resolve();
                });
                worker.postMessage(request);
            });
            await assertReplies(replies);
        } finally {
            await worker.terminate();
        }
    });
});
