/**
 * The live stream `GET /v1/stream` (schema/stream.md), named as WotsClient's `StreamClient`: a WebSocket that logs
 * in with an `auth` frame (a browser cannot set the upgrade's Authorization header), gets `ready`, then receives
 * `message` frames (and, opened with `?groups=true`, `group_message` frames: the slots of group messages, in one
 * sequence order with them) and sends `send`, `send_group` (ephemeral) and `ack` frames whose replies come back by
 * `ref`. Acknowledgements of handled messages go with one `ack` frame unanswered at a time (`acknowledgeSoon`). It
 * reconnects with a growing, jittered pause, except after `account_suspended`; the relay sends again whatever was not
 * acknowledged.
 */

import { concatBytes, toBase64 } from '../crypto/bytes.js';
import { RelayError } from './relay-error.js';

export class StreamClient {
    /**
     * @param {object} options
     * @param {import('./relay-client.js').RelayClient} options.relay for the session
     * @param {(frame: object) => void} options.onMessage every `message` frame (mail, or an ephemeral frame) and
     *   every `group_message` frame
     * @param {(state: string) => void} [options.onState] `connecting`, `ready`, `offline` or `stopped`
     * @param {string} [options.url] default: `ws(s)://` of the page's host + `/v1/stream?groups=true`
     * @param {typeof WebSocket} [options.WebSocket]
     */
    constructor({ relay, onMessage, onState = () => {}, url, WebSocket: Socket = globalThis.WebSocket }) {
        this.relay = relay;
        this.onMessage = onMessage;
        this.onState = onState;
        this.url = url ?? StreamClient.defaultURL(relay.baseURL || globalThis.location.origin);
        this.Socket = Socket;
        this.socket = null;
        this.pending = new Map();
        this.nextRef = 1;
        this.stopped = true;
        this.backoff = 500;
        this.readyWaiters = [];
        /** Keys given to `acknowledgeSoon` and not sent yet, each with its promise's settlers. */
        this.acksWaiting = [];
        /** The `ack` frame of `acknowledgeSoon` awaiting its reply, or null. */
        this.ackUnanswered = null;
    }

    /** Most keys one `ack` frame may name (schema/stream.md rule 4). */
    static maximumAckKeys = 1000;

    static defaultURL(origin) {
        return `${origin.replace(/^http/, 'ws')}/v1/stream?groups=true`;
    }

    start() {
        this.stopped = false;
        this.connect();
    }

    stop() {
        this.stopped = true;
        this.sendLastAcks();
        this.socket?.close(1000);
        this.socket = null;
        this.failPending(new RelayError('relay_unreachable', 'the stream was closed'));
        this.onState('stopped');
    }

    get isReady() {
        return this.socket !== null && this.socket.readyState === 1 && this.authenticated === true;
    }

    /** Resolves once the stream is ready (or at once when it is). */
    ready() {
        if (this.isReady) return Promise.resolve();
        return new Promise((resolve) => this.readyWaiters.push(resolve));
    }

    /**
     * Sends a client frame and resolves with its reply; an `error` reply rejects with a `RelayError`.
     * @param {object} frame without `ref`
     */
    request(frame) {
        if (!this.isReady) return Promise.reject(new RelayError('relay_unreachable', 'the stream is not connected'));
        const ref = String(this.nextRef++);
        return new Promise((resolve, reject) => {
            this.pending.set(ref, { resolve, reject });
            this.socket.send(JSON.stringify({ ...frame, ref }));
        });
    }

    /** `send`: an envelope (JSON form); `ephemeral` for typing (never stored by the relay). */
    send(envelope, { ephemeral = false } = {}) {
        return this.request(ephemeral ? { type: 'send', envelope, ephemeral: true } : { type: 'send', envelope });
    }

    /**
     * `send_group`, always ephemeral (group typing, rule 8): a group envelope's body and every recipient's slot,
     * concatenated in the header's order, as standard base64. The relay never stores it.
     * @param {{body: Uint8Array, slots: Array<{wrappedKey: Uint8Array}>}} message slots in header order
     */
    sendGroupEphemeral({ body, slots }) {
        const keys = concatBytes(...slots.map((slot) => slot.wrappedKey));
        return this.request({ type: 'send_group', ephemeral: true, body: toBase64(body), slots: toBase64(keys) });
    }

    /** `ack` of message keys `{sender, id}`. */
    acknowledge(messages) {
        return this.request({ type: 'ack', messages });
    }

    /**
     * Acknowledges one message key with at most one such `ack` frame unanswered (WotsClient's AcknowledgementQueue):
     * keys given while one is unanswered go out together, in one frame, when it is answered. A quiet stream thus
     * acknowledges each message at once and a busy one in batches. Resolves with the `acked` reply of the frame that
     * carried the key; rejects when that frame was refused or the stream closed first (the relay then sends the
     * message again on the next connection, unless `stop` sent the key in its last frame and the relay acted on it).
     * @param {{sender: string, id: string}} key
     */
    acknowledgeSoon(key) {
        return new Promise((resolve, reject) => {
            this.acksWaiting.push({ key, resolve, reject });
            this.sendWaitingAcks();
        });
    }

    sendWaitingAcks() {
        if (this.ackUnanswered !== null || this.acksWaiting.length === 0 || !this.isReady) return;
        const batch = this.acksWaiting.splice(0, StreamClient.maximumAckKeys);
        const frame = this.acknowledge(batch.map(({ key }) => key));
        this.ackUnanswered = frame;
        frame.then(
            (reply) => batch.forEach(({ resolve }) => resolve(reply)),
            (error) => batch.forEach(({ reject }) => reject(error)),
        ).finally(() => {
            if (this.ackUnanswered !== frame) return;
            this.ackUnanswered = null;
            this.sendWaitingAcks();
        });
    }

    /**
     * The stream is stopping: the keys still waiting go in last `ack` frames, before the close frame, whatever frame
     * is unanswered; nobody waits for their replies. The relay acts on frames it read before the socket closed.
     */
    sendLastAcks() {
        if (!this.isReady) return;
        const keys = this.acksWaiting.map(({ key }) => key);
        for (let start = 0; start < keys.length; start += StreamClient.maximumAckKeys) {
            // Its reply never comes: the close that follows rejects it, and nothing waits on it.
            this.acknowledge(keys.slice(start, start + StreamClient.maximumAckKeys)).catch(() => {});
        }
    }

    async connect() {
        if (this.stopped) return;
        this.onState('connecting');
        let session;
        try {
            session = await this.relay.currentSession();
        } catch (error) {
            this.scheduleReconnect(error);
            return;
        }
        if (this.stopped) return;
        const socket = new this.Socket(this.url);
        this.socket = socket;
        this.authenticated = false;
        socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'auth', session, ref: 'auth' })));
        socket.addEventListener('message', (event) => this.receive(socket, event.data));
        socket.addEventListener('close', (event) => {
            if (this.socket !== socket) return;
            this.socket = null;
            this.authenticated = false;
            this.failPending(new RelayError('relay_unreachable', `the stream closed (${event.code})`));
            if (!this.stopped) this.scheduleReconnect();
        });
    }

    receive(socket, data) {
        let frame;
        try {
            frame = JSON.parse(data);
        } catch {
            return;
        }
        if (frame.type === 'ready') {
            this.authenticated = true;
            this.backoff = 500;
            this.onState('ready');
            for (const resolve of this.readyWaiters.splice(0)) resolve();
            this.sendWaitingAcks();
            return;
        }
        if (frame.type === 'message' || frame.type === 'group_message') {
            this.onMessage(frame);
            return;
        }
        if (frame.type === 'error' && frame.ref === 'auth') {
            if (frame.code === 'invalid_session') this.relay.invalidateSession();
            if (frame.code === 'account_suspended') this.stopped = true;
            return;
        }
        if (frame.type === 'error' && frame.ref === undefined && frame.code === 'account_suspended') {
            this.stopped = true;
            return;
        }
        if (frame.type === 'error' && frame.ref === undefined && frame.code === 'invalid_session') {
            // The session expired or a key rotation ended it: the reconnect logs in afresh.
            this.relay.invalidateSession();
            return;
        }
        const waiter = frame.ref === undefined ? undefined : this.pending.get(frame.ref);
        if (waiter === undefined) return;
        this.pending.delete(frame.ref);
        if (frame.type === 'error') waiter.reject(new RelayError(frame.code, frame.message ?? frame.code));
        else waiter.resolve(frame);
    }

    scheduleReconnect() {
        if (this.stopped) return;
        this.onState('offline');
        const pause = this.backoff * (0.5 + Math.random());
        this.backoff = Math.min(this.backoff * 2, 30_000);
        setTimeout(() => this.connect(), pause);
    }

    failPending(error) {
        for (const { reject } of this.pending.values()) reject(error);
        this.pending.clear();
        for (const { reject } of this.acksWaiting.splice(0)) reject(error);
        this.ackUnanswered = null;
    }
}
