import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

const { Response } = globalThis;

import { Token } from '../js/crypto/token.js';
import { RelayClient } from '../js/protocol/relay-client.js';
import { StreamClient } from '../js/protocol/stream-client.js';

/** A WebSocket double: records what the client sent and lets the test play the relay's frames. */
class FakeSocket extends EventTarget {
    static last = null;

    constructor(url) {
        super();
        this.url = url;
        this.sent = [];
        this.readyState = 0;
        FakeSocket.last = this;
        queueMicrotask(() => {
            this.readyState = 1;
            this.dispatchEvent(new Event('open'));
        });
    }

    send(text) {
        this.sent.push(JSON.parse(text));
    }

    relay(frame) {
        this.dispatchEvent(Object.assign(new Event('message'), { data: JSON.stringify(frame) }));
    }

    close(code = 1000) {
        this.readyState = 3;
        this.dispatchEvent(Object.assign(new Event('close'), { code }));
    }
}

const fakeRelay = (session = 'session-1') => ({ baseURL: 'http://127.0.0.1:8080', currentSession: async () => session,
    invalidateSession() { this.invalidated = true; } });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A started stream whose socket the relay answered with `ready`. */
async function readyStream() {
    const stream = new StreamClient({ relay: fakeRelay(), onMessage: () => {}, WebSocket: FakeSocket });
    stream.start();
    await settle();
    const socket = FakeSocket.last;
    socket.relay({ type: 'ready', ref: 'auth' });
    return { stream, socket };
}

describe('StreamClient (schema/stream.md)', () => {
    test('logs in with an auth frame, then matches each reply to its request by ref', async () => {
        const messages = [];
        const onMessage = (frame) => messages.push(frame);
        const stream = new StreamClient({ relay: fakeRelay(), onMessage, WebSocket: FakeSocket });
        assert.equal(stream.url, 'ws://127.0.0.1:8080/v1/stream?groups=true', 'group slots come on the one stream');
        stream.start();
        await settle();
        const socket = FakeSocket.last;
        assert.deepEqual(socket.sent[0], { type: 'auth', session: 'session-1', ref: 'auth' });
        assert.equal(stream.isReady, false);
        socket.relay({ type: 'ready', token: 'psvnq2utkat2kvrmi2s4erjzcm', ref: 'auth' });
        await stream.ready();
        const first = stream.send({ id: 'a' });
        const second = stream.acknowledge([{ sender: 'x', id: 'y' }]);
        const [sendFrame, ackFrame] = socket.sent.slice(1);
        assert.equal(sendFrame.type, 'send');
        assert.equal(ackFrame.type, 'ack');
        assert.notEqual(sendFrame.ref, ackFrame.ref);
        socket.relay({ type: 'acked', ref: ackFrame.ref, acknowledged: 1, messages: [] });
        socket.relay({ type: 'error', ref: sendFrame.ref, code: 'recipient_key_changed', message: 'changed' });
        assert.equal((await second).acknowledged, 1);
        await assert.rejects(first, (error) => error.code === 'recipient_key_changed');
        socket.relay({ type: 'message', seq: 1, receivedAt: 'now', envelope: {} });
        socket.relay({ type: 'group_message', seq: 2, receivedAt: 'now', body: 'AA==', slot: 'AA==' });
        assert.deepEqual(messages.map((frame) => frame.type), ['message', 'group_message']);
        stream.stop();
    });

    test('acknowledgeSoon keeps one ack frame unanswered; what comes meanwhile goes together in the next', async () => {
        const { stream, socket } = await readyStream();
        const keys = ['a', 'b', 'c'].map((id) => ({ sender: 's', id }));
        const first = stream.acknowledgeSoon(keys[0]);
        const later = [stream.acknowledgeSoon(keys[1]), stream.acknowledgeSoon(keys[2])];
        const acks = () => socket.sent.filter((frame) => frame.type === 'ack');
        assert.deepEqual(acks().map((frame) => frame.messages), [[keys[0]]], 'the first goes at once, alone');
        socket.relay({ type: 'acked', ref: acks()[0].ref, acknowledged: 1, messages: [keys[0]] });
        assert.equal((await first).acknowledged, 1);
        await settle();
        assert.deepEqual(acks().map((frame) => frame.messages), [[keys[0]], [keys[1], keys[2]]]);
        socket.relay({ type: 'error', ref: acks()[1].ref, code: 'storage_unavailable', message: 'down' });
        for (const waiting of later) await assert.rejects(waiting, (error) => error.code === 'storage_unavailable');
        await settle();
        const next = stream.acknowledgeSoon({ sender: 's', id: 'd' });
        assert.equal(acks().length, 3, 'a refused frame leaves none unanswered');
        const held = stream.acknowledgeSoon({ sender: 's', id: 'e' });
        socket.close(1011);
        await assert.rejects(next, (error) => error.code === 'relay_unreachable');
        await assert.rejects(held, (error) => error.code === 'relay_unreachable', 'a key never sent fails too');
        stream.stop();
    });

    test('stopping sends the keys still waiting in a last ack frame, before the close frame', async () => {
        const { stream, socket } = await readyStream();
        const keys = ['a', 'b', 'c'].map((id) => ({ sender: 's', id }));
        const waiting = keys.map((key) => stream.acknowledgeSoon(key));
        let sentBeforeClose = null;
        const close = socket.close.bind(socket);
        socket.close = (code) => {
            sentBeforeClose = socket.sent.length;
            close(code);
        };
        stream.stop();
        const acks = socket.sent.filter((frame) => frame.type === 'ack');
        assert.deepEqual(acks.map((frame) => frame.messages), [[keys[0]], [keys[1], keys[2]]],
            'the unanswered frame is not waited for');
        assert.equal(sentBeforeClose, socket.sent.length, 'the last frame goes before the close frame');
        assert.notEqual(acks[0].ref, acks[1].ref);
        for (const promise of waiting) await assert.rejects(promise, (error) => error.code === 'relay_unreachable');
    });

    test('an ephemeral send says so; a closed socket fails what waits and reconnects', async () => {
        const { stream, socket } = await readyStream();
        const pending = stream.send({ id: 'b' }, { ephemeral: true });
        assert.equal(socket.sent.at(-1).ephemeral, true);
        socket.close(1011);
        await assert.rejects(pending, (error) => error.code === 'relay_unreachable');
        assert.equal(stream.isReady, false);
        stream.stop();
    });

    test('send_group is always ephemeral: the body and every slot concatenated in order, as base64 (rule 8)', async () => {
        const frames = [];
        const stream = new StreamClient({ relay: fakeRelay(), onMessage: (frame) => frames.push(frame),
            WebSocket: FakeSocket });
        stream.start();
        await settle();
        const socket = FakeSocket.last;
        socket.relay({ type: 'ready', ref: 'auth' });
        const slots = [new Uint8Array(256).fill(1), new Uint8Array(256).fill(2)];
        const pending = stream.sendGroupEphemeral({
            body: Uint8Array.of(3, 0, 1), slots: slots.map((wrappedKey) => ({ wrappedKey })),
        });
        const sent = socket.sent.at(-1);
        assert.deepEqual(Object.keys(sent).sort(), ['body', 'ephemeral', 'ref', 'slots', 'type']);
        assert.equal(sent.type, 'send_group');
        assert.equal(sent.ephemeral, true);
        assert.equal(sent.body, 'AwAB');
        const decoded = Buffer.from(sent.slots, 'base64');
        assert.equal(decoded.length, 512);
        assert.deepEqual([decoded[0], decoded[255], decoded[256], decoded[511]], [1, 1, 2, 2]);
        socket.relay({ type: 'accepted', ref: sent.ref, id: 'x', ephemeral: true, delivered: 2 });
        assert.equal((await pending).delivered, 2);
        // An ephemeral group slot has no seq; it is handed on like any group_message (the messenger tells them apart).
        socket.relay({ type: 'group_message', ephemeral: true, receivedAt: 'now', body: 'AA==', slot: 'AA==' });
        assert.equal(frames.at(-1).ephemeral, true);
        stream.stop();
    });
});

describe('RelayClient (schema/openapi.yaml)', () => {
    test('a refusal becomes a RelayError with the relay\'s code and status', async () => {
        const fetch = async () => new Response(JSON.stringify({ error: { code: 'nickname_taken', message: 'taken' } }),
            { status: 409 });
        const client = new RelayClient({ baseURL: 'http://relay.example', fetch });
        await assert.rejects(client.register({}), (error) => error.code === 'nickname_taken' && error.status === 409);
    });

    test('an expired session logs in again once and retries the call', async () => {
        const calls = [];
        const fetch = async (url, init) => {
            calls.push(`${init.method} ${new URL(url).pathname} ${init.headers.Authorization ?? ''}`.trim());
            if (url.endsWith('/v1/messages') && init.headers.Authorization === 'Bearer old') {
                const refusal = { error: { code: 'invalid_session', message: 'expired' } };
                return new Response(JSON.stringify(refusal), { status: 401 });
            }
            if (url.endsWith('/v1/auth/challenge')) {
                return new Response(JSON.stringify({ nonce: btoa('n'.repeat(32)), relayID: btoa('r'.repeat(16)) }));
            }
            if (url.endsWith('/v1/auth/session')) return new Response(JSON.stringify({ session: 'new' }));
            return new Response(JSON.stringify({ id: 'x', seq: 1 }), { status: 202 });
        };
        const client = new RelayClient({ baseURL: 'http://relay.example', fetch });
        const identity = { sign: async () => new Uint8Array(256) };
        client.authenticate({ token: Token.parse('psvnq2utkat2kvrmi2s4erjzcm'), identity });
        client.session = 'old';
        assert.equal((await client.send({})).seq, 1);
        assert.deepEqual(calls, ['POST /v1/messages Bearer old', 'POST /v1/auth/challenge', 'POST /v1/auth/session',
            'POST /v1/messages Bearer new']);
    });

    test('the blob API: bytes out and in, offsets from headers, a 409 names the relay\'s offset', async () => {
        const requests = [];
        const fetch = async (url, init) => {
            requests.push({ method: init.method, path: new URL(url).pathname, headers: init.headers, body: init.body });
            const offsetMismatch = { error: { code: 'blob_offset_mismatch', message: 'offset 5 is not 3' } };
            if (init.method === 'HEAD') {
                return new Response(null, { headers: { 'Upload-Offset': '3', 'Upload-Length': '9' } });
            }
            if (init.method === 'PATCH' && init.headers['Upload-Offset'] === '5') {
                return new Response(JSON.stringify(offsetMismatch), { status: 409, headers: { 'Upload-Offset': '3' } });
            }
            if (init.method === 'PATCH') return new Response(null, { status: 204, headers: { 'Upload-Offset': '6' } });
            if (init.method === 'GET') return new Response(Uint8Array.of(7, 8, 9), { status: 206 });
            return new Response(null, { status: 404 });
        };
        const client = new RelayClient({ baseURL: 'http://relay.example', fetch });
        client.session = 'session';
        const id = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
        assert.deepEqual(await client.blobOffset(id), { offset: 3, length: 9 });
        assert.equal(await client.uploadChunk(id, Uint8Array.of(1, 2, 3), 3), 6);
        assert.equal(requests[1].headers['Content-Type'], 'application/octet-stream');
        assert.equal(requests[1].headers.Authorization, 'Bearer session');
        await assert.rejects(client.uploadChunk(id, Uint8Array.of(1), 5),
            (error) => error.code === 'blob_offset_mismatch' && error.status === 409 && error.uploadOffset === 3);
        assert.deepEqual(await client.downloadBlob(id, { from: 6 }), Uint8Array.of(7, 8, 9));
        assert.equal(requests.at(-1).headers.Range, 'bytes=6-');
        await assert.rejects(client.binary('DELETE', `/v1/blobs/${id}`), (error) => error.code === 'unknown_blob');
    });

    test('a disappearing file\'s blob is announced with its message\'s expiry, an ordinary one without', async () => {
        const bodies = [];
        const fetch = async (url, init) => {
            bodies.push(JSON.parse(init.body));
            return new Response(JSON.stringify({ id: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', size: 9, received: 0 }),
                { status: 201 });
        };
        const client = new RelayClient({ baseURL: 'http://relay.example', fetch });
        client.session = 'session';
        const token = 'psvnq2utkat2kvrmi2s4erjzcm';
        await client.createBlob({ size: 9, recipients: [token], expiresAt: 1_800_000_000_123 });
        await client.createBlob({ size: 9, recipients: [token] });
        assert.deepEqual(bodies, [
            { size: 9, recipients: [token], expiresAt: '2027-01-15T08:00:00.123Z' },
            { size: 9, recipients: [token] },
        ]);
    });

    test('an unreachable relay is relay_unreachable', async () => {
        const fetch = async () => {
            throw new TypeError('refused');
        };
        const client = new RelayClient({ baseURL: 'http://relay.example', fetch });
        await assert.rejects(client.relayID(), (error) => error.code === 'relay_unreachable');
    });
});
