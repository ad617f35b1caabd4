/**
 * The relay's HTTP API (schema/openapi.yaml) over `fetch`, named as WotsClient's `RelayClient`: login with a signed
 * challenge and a bearer session that is renewed when it expires, registration, restore, the directory, sending and
 * the mailbox. The page talks only to the relay that served it (the CSP's `connect-src 'self'`).
 */

import { fromBase64, toBase64 } from '../crypto/bytes.js';
import { AuthenticationProof } from '../crypto/proofs.js';
import { RelayError } from './relay-error.js';

export class RelayClient {
    /** @param {{baseURL?: string, fetch?: typeof fetch}} [options] baseURL default: the page's origin */
    constructor({ baseURL = globalThis.location?.origin ?? '', fetch: fetcher } = {}) {
        this.baseURL = baseURL.replace(/\/$/, '');
        this.fetch = fetcher ?? globalThis.fetch.bind(globalThis);
        this.session = null;
        this.credentials = null;
        this.relayIdentity = null;
    }

    /** Who logs in: the token and the private keys that sign the challenge. */
    authenticate({ token, identity }) {
        this.credentials = { token, identity };
        this.session = null;
    }

    /** `GET /v1/relay`: the relay's id (bytes), cached. */
    async relayID() {
        if (this.relayIdentity === null) {
            const identity = await this.call('GET', '/v1/relay');
            this.relayIdentity = bytesField(identity.relayID, 'relayID');
        }
        return this.relayIdentity;
    }

    /** `POST /v1/auth/challenge`: a single-use nonce and the relay's id, as bytes. */
    async challenge() {
        const challenge = await this.call('POST', '/v1/auth/challenge');
        return { nonce: bytesField(challenge.nonce, 'nonce'), relayID: bytesField(challenge.relayID, 'relayID') };
    }

    /** A bearer session for the credentials, logging in when there is none. */
    async currentSession() {
        if (this.session !== null) return this.session;
        if (this.credentials === null) throw new RelayError('invalid_session', 'no identity to log in with');
        const { token, identity } = this.credentials;
        const { nonce, relayID } = await this.challenge();
        const signature = await AuthenticationProof.sign({ relayID, nonce, token, identity });
        const response = await this.call('POST', '/v1/auth/session', {
            body: { token: String(token), nonce: toBase64(nonce), signature: toBase64(signature) },
        });
        this.session = response.session;
        return this.session;
    }

    invalidateSession() {
        this.session = null;
    }

    /** `POST /v1/register` with a complete registration request (JSON form); the new directory entry. */
    register(request) {
        return this.call('POST', '/v1/register', { body: request });
    }

    /** `GET /v1/directory`: one page ordered by nickname; `after` is the previous page's `next` cursor. */
    directoryPage({ limit = 50, after = null } = {}) {
        const query = new URLSearchParams({ limit: String(limit) });
        if (after) query.set('after', after);
        return this.call('GET', `/v1/directory?${query}`);
    }

    /** `GET /v1/directory/{nickname}`. */
    entryByNickname(nickname) {
        return this.call('GET', `/v1/directory/${encodeURIComponent(String(nickname))}`);
    }

    /** `GET /v1/directory/token/{token}`. */
    entryByToken(token) {
        return this.call('GET', `/v1/directory/token/${encodeURIComponent(String(token))}`);
    }

    /** `POST /v1/messages`: stores an envelope (JSON form) for its recipient; the send receipt. */
    send(envelope) {
        return this.call('POST', '/v1/messages', { body: envelope, authenticated: true });
    }

    /** `GET /v1/messages`: the caller's mailbox after a sequence number. */
    mailbox({ after = 0, limit = 100 } = {}) {
        return this.call('GET', `/v1/messages?after=${after}&limit=${limit}`, { authenticated: true });
    }

    /** `POST /v1/messages/ack` with message keys `{sender, id}`. */
    acknowledge(messages) {
        return this.call('POST', '/v1/messages/ack', { body: { messages }, authenticated: true });
    }

    /**
     * `POST /v1/group-messages`: a group envelope's body once and one slot per recipient, in header order; the
     * receipt `{id, recipients, receivedAt}`.
     * @param {{body: Uint8Array, slots: Array<{recipient: object, wrappedKey: Uint8Array}>}} message
     */
    sendGroup({ body, slots }) {
        const json = {
            body: toBase64(body),
            slots: slots.map((slot) => ({ recipient: String(slot.recipient), wrappedKey: toBase64(slot.wrappedKey) })),
        };
        return this.call('POST', '/v1/group-messages', { body: json, authenticated: true });
    }

    /** `GET /v1/group-messages`: the caller's slots with their bodies `{messages: [{seq, receivedAt, body, slot}]}`. */
    groupMailbox({ after = 0, limit = 100 } = {}) {
        return this.call('GET', `/v1/group-messages?after=${after}&limit=${limit}`, { authenticated: true });
    }

    /**
     * `POST /v1/blobs`: announces `size` encrypted bytes only `recipients` (tokens) may fetch; the blob's status.
     * `expiresAt` (milliseconds), for a disappearing file: the relay deletes the blob then, with its message.
     */
    createBlob({ size, recipients, expiresAt }) {
        const body = { size, recipients: recipients.map(String) };
        if (expiresAt) body.expiresAt = new Date(expiresAt).toISOString();
        return this.call('POST', '/v1/blobs', { body, authenticated: true });
    }

    /** `HEAD /v1/blobs/{id}`: the bytes the relay holds (`offset`) of the blob's `length`. */
    async blobOffset(id) {
        const answer = await this.binary('HEAD', `/v1/blobs/${id}`);
        const offset = integerHeader(answer.headers, 'Upload-Offset');
        const length = integerHeader(answer.headers, 'Upload-Length');
        if (offset === null || length === null) {
            throw new RelayError('invalid_response', `HEAD of blob ${id} answered without its offset`);
        }
        return { offset, length };
    }

    /**
     * `PATCH /v1/blobs/{id}` with one chunk (at most 1 MiB) at `offset`; the relay's new offset.
     * @throws {RelayError} `blob_offset_mismatch` when the relay holds another offset
     */
    async uploadChunk(id, bytes, offset) {
        const answer = await this.binary('PATCH', `/v1/blobs/${id}`, {
            headers: { 'Upload-Offset': String(offset), 'Content-Type': 'application/octet-stream' },
            body: bytes,
        });
        const next = integerHeader(answer.headers, 'Upload-Offset');
        if (next === null) throw new RelayError('invalid_response', `PATCH of blob ${id} answered without an offset`);
        return next;
    }

    /** `GET /v1/blobs/{id}` from byte `from` (a `Range` when not 0): the bytes the relay sent. */
    async downloadBlob(id, { from = 0 } = {}) {
        const headers = from > 0 ? { Range: `bytes=${from}-` } : {};
        return (await this.binary('GET', `/v1/blobs/${id}`, { headers })).bytes;
    }

    /** `POST /v1/blobs/{id}/ack`: this account has the blob (the relay deletes it once every recipient has it). */
    acknowledgeBlob(id) {
        return this.call('POST', `/v1/blobs/${id}/ack`, { authenticated: true });
    }

    /** `POST /v1/restore/parameters`: the scrypt salt and cost of `nickname`'s secret. */
    restoreParameters(nickname) {
        return this.call('POST', '/v1/restore/parameters', { body: { nickname: String(nickname) } });
    }

    /**
     * `POST /v1/restore`: the account, for a fresh challenge signed by the restore key of `keys` (`SecretKeys`).
     * @returns {Promise<{entry: object, privateRecord: object}>}
     */
    async restore(nickname, keys) {
        const { nonce, relayID } = await this.challenge();
        const signature = await keys.signRestore({ relayID, nonce, nickname });
        return this.call('POST', '/v1/restore', {
            body: { nickname: String(nickname), nonce: toBase64(nonce), signature: toBase64(signature) },
        });
    }

    /**
     * One API call. An authenticated call whose session expired logs in again once and retries.
     * @throws {RelayError} the relay's refusal, `relay_unreachable`, or `invalid_response`
     */
    async call(method, path, { body, authenticated = false, retried = false } = {}) {
        const headers = { Accept: 'application/json' };
        if (body !== undefined) headers['Content-Type'] = 'application/json';
        if (authenticated) headers.Authorization = `Bearer ${await this.currentSession()}`;
        let response;
        try {
            response = await this.fetch(`${this.baseURL}${path}`, {
                method,
                headers,
                body: body === undefined ? undefined : JSON.stringify(body),
                cache: 'no-store',
            });
        } catch (error) {
            throw new RelayError('relay_unreachable', `the relay did not answer ${method} ${path}: ${error.message}`);
        }
        const text = await response.text();
        let json = null;
        try {
            json = text.length > 0 ? JSON.parse(text) : {};
        } catch {
            throw new RelayError('invalid_response', `${method} ${path} answered ${response.status} with no JSON`,
                response.status);
        }
        if (response.ok) return json;
        const code = json?.error?.code ?? 'invalid_response';
        if (authenticated && !retried && response.status === 401 && code === 'invalid_session') {
            this.invalidateSession();
            return this.call(method, path, { body, authenticated, retried: true });
        }
        throw new RelayError(code, json?.error?.message ?? `${method} ${path} failed (${response.status})`,
            response.status);
    }

    /**
     * An authenticated call with bytes in and out (the blob API), renewing an expired session once.
     * @returns {Promise<{status: number, headers: Headers, bytes: Uint8Array}>}
     * @throws {RelayError} the relay's refusal (its JSON error), or `relay_unreachable`
     */
    async binary(method, path, { headers = {}, body, retried = false } = {}) {
        const authorization = `Bearer ${await this.currentSession()}`;
        let response;
        try {
            response = await this.fetch(`${this.baseURL}${path}`, {
                method, headers: { ...headers, Authorization: authorization }, body, cache: 'no-store',
            });
        } catch (error) {
            throw new RelayError('relay_unreachable', `the relay did not answer ${method} ${path}: ${error.message}`);
        }
        const bytes = method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer());
        if (response.ok) return { status: response.status, headers: response.headers, bytes };
        let error = null;
        try {
            error = JSON.parse(new TextDecoder().decode(bytes)).error ?? null;
        } catch {
            // A HEAD refusal has no body: the status says enough.
        }
        const code = error?.code ?? (response.status === 404 ? 'unknown_blob' : 'invalid_response');
        if (!retried && response.status === 401 && (code === 'invalid_session' || error === null)) {
            this.invalidateSession();
            return this.binary(method, path, { headers, body, retried: true });
        }
        const refusal = new RelayError(code, error?.message ?? `${method} ${path} failed (${response.status})`,
            response.status);
        refusal.uploadOffset = integerHeader(response.headers, 'Upload-Offset');
        throw refusal;
    }
}

function integerHeader(headers, name) {
    const text = headers?.get?.(name);
    return text !== null && text !== undefined && /^\d+$/.test(text) ? Number(text) : null;
}

function bytesField(text, what) {
    const bytes = fromBase64(text);
    if (bytes === null || bytes.length === 0) {
        throw new RelayError('invalid_response', `the relay's ${what} is not base64`);
    }
    return bytes;
}
