// A world in memory for the messenger's group code: accounts with the group vector's keys (and any made here), each
// with the real Receiving, ContactBook, Attachments and Groups over a store without IndexedDB, and a relay that hands
// each stored slot at once to its recipient's receiving queue (each with a `seq`), hands an ephemeral slot (no `seq`)
// to the accounts that are online, lets only a blob's recipients fetch it, and publishes each account's keys in its
// directory (replaced when a test "rotates" an account). 1:1 receipts go straight to the peer's `applyReceipt`, as
// if opened there: what the group code does with them is under test, not the 1:1 envelope.

import { toBase64 } from '../js/crypto/bytes.js';
import { Token } from '../js/crypto/token.js';
import { MessageContent } from '../js/content/message-content.js';
import { Attachments } from '../js/messenger/attachments.js';
import { ContactBook } from '../js/messenger/contact-book.js';
import { Groups } from '../js/messenger/groups.js';
import { Receiving } from '../js/messenger/receiving.js';
import { RelayError } from '../js/protocol/relay-error.js';
import { vectorParty } from './tools.mjs';

export class MemoryStore {
    constructor() {
        this.groupsKept = new Map();
        this.messagesKept = new Map();
        this.contactsKept = new Map();
        this.attachmentsKept = new Map();
    }
    async group(id) { return structuredClone(this.groupsKept.get(id) ?? null); }
    async saveGroup(id, record) { this.groupsKept.set(id, structuredClone(record)); }
    async groups() { return [...this.groupsKept].map(([id, record]) => ({ id, ...structuredClone(record) })); }
    async saveMessage(message) {
        this.messagesKept.set(`${message.conversation}/${message.sender}/${message.id}`.toLowerCase(), structuredClone(message));
    }
    async message(conversation, sender, id) {
        return structuredClone(this.messagesKept.get(`${conversation}/${sender}/${id}`.toLowerCase()) ?? null);
    }
    async messages(conversation) {
        return [...this.messagesKept.values()].filter((m) => m.conversation === conversation)
            .map((m) => structuredClone(m));
    }
    async deleteExpired(now = Date.now()) {
        const expired = [...this.messagesKept].filter(([, m]) => m.expiresAt && m.expiresAt <= now);
        for (const [key] of expired) {
            this.messagesKept.delete(key);
            this.attachmentsKept.delete(key);
        }
        return expired.map(([, m]) => m);
    }
    async contact(token) { return structuredClone(this.contactsKept.get(String(token)) ?? null); }
    async contacts() { return [...this.contactsKept.values()].map((c) => structuredClone(c)); }
    async saveContact(contact) { this.contactsKept.set(contact.token, structuredClone(contact)); }
    async saveAttachment(owner, bytes) { this.attachmentsKept.set(attachmentKey(owner), Uint8Array.from(bytes)); }
    async attachment(owner) { return this.attachmentsKept.get(attachmentKey(owner)) ?? null; }
}

function attachmentKey(owner) {
    return typeof owner === 'string' ? owner : `${owner.conversation}/${owner.sender}/${owner.id}`.toLowerCase();
}

const unknownBlob = () => new RelayError('unknown_blob', 'no such blob (or not yours)', 404);

/** The relay: a directory, a mailbox per account whose slots are handed over at once (or dropped, when told), blobs. */
export class MemoryRelay {
    constructor() {
        this.accounts = new Map();
        this.posted = 0;
        this.drop = () => false;
        this.seq = 0;
        this.blobs = new Map();
        /** Keep a blob after every recipient acknowledged it (to see who else may fetch it). */
        this.keepBlobs = false;
    }

    entry(token) {
        const account = this.accounts.get(String(token));
        if (!account) throw new RelayError('unknown_token', `no account ${token}`, 404);
        const { party, published } = account;
        return {
            token: String(token), nickname: party.nickname, publicKeys: published?.publicKeys ?? party.json.publicKeys,
            fingerprint: published?.fingerprint ?? party.json.fingerprint,
        };
    }

    /** Publishes other keys for `token` (`{publicKeys, fingerprint}` in JSON form), as a rotation would. */
    publish(token, keys) {
        this.accounts.get(String(token)).published = keys;
    }

    async deliver({ body, slots }) {
        this.posted += 1;
        for (const slot of slots) {
            const frame = { type: 'group_message', seq: ++this.seq, receivedAt: new Date().toISOString(),
                body: toBase64(body), slot: toBase64(slot.wrappedKey) };
            if (this.drop(String(slot.recipient))) continue;
            await this.accounts.get(String(slot.recipient)).messenger.receive(frame);
        }
        return { id: 'x', recipients: slots.length };
    }

    /** A `send_group` frame with `"ephemeral": true`: each online recipient's slot, no `seq`, nothing kept. */
    async deliverEphemeral({ body, slots }) {
        let delivered = 0;
        for (const slot of slots) {
            const { messenger } = this.accounts.get(String(slot.recipient));
            if (!messenger.online) continue;
            delivered += 1;
            await messenger.receive({ type: 'group_message', ephemeral: true, receivedAt: new Date().toISOString(),
                body: toBase64(body), slot: toBase64(slot.wrappedKey) });
        }
        return { type: 'accepted', ephemeral: true, delivered };
    }

    // The blob API: the uploader writes; only the recipients it named read and acknowledge (anyone else: 404).

    createBlob(caller, { size, recipients }) {
        const id = String(Token.random());
        this.blobs.set(id, {
            uploader: caller, recipients: new Set(recipients.map(String)), size, bytes: new Uint8Array(0),
            acknowledged: new Set(),
        });
        return { id, size, received: 0 };
    }

    readable(caller, id, { uploader = false } = {}) {
        const blob = this.blobs.get(id);
        if (!blob || !(blob.recipients.has(caller) || (uploader && blob.uploader === caller))) throw unknownBlob();
        return blob;
    }

    blobOffset(caller, id) {
        const blob = this.readable(caller, id, { uploader: true });
        return { offset: blob.bytes.length, length: blob.size };
    }

    uploadChunk(caller, id, bytes, offset) {
        const blob = this.blobs.get(id);
        if (!blob || blob.uploader !== caller) throw unknownBlob();
        const joined = new Uint8Array(offset + bytes.length);
        joined.set(blob.bytes.subarray(0, offset));
        joined.set(bytes, offset);
        blob.bytes = joined;
        return blob.bytes.length;
    }

    downloadBlob(caller, id, { from = 0 } = {}) {
        const blob = this.readable(caller, id);
        return blob.bytes.slice(from);
    }

    acknowledgeBlob(caller, id) {
        const blob = this.readable(caller, id);
        blob.acknowledged.add(caller);
        const deleted = [...blob.recipients].every((token) => blob.acknowledged.has(token));
        if (deleted && !this.keepBlobs) this.blobs.delete(id);
        return { deleted };
    }
}

/** Just what the group code uses of a Messenger, with the real receiving, contacts, attachments and groups. */
export class FakeMessenger extends EventTarget {
    constructor(party, relay) {
        super();
        this.token = party.token;
        this.identity = party.identity;
        this.account = { token: String(party.token), nickname: party.nickname, publicKeys: party.json.publicKeys };
        this.sendVersion = 2;
        this.readReceipts = true;
        this.online = true;
        this.store = new MemoryStore();
        this.worldRelay = relay;
        const caller = String(party.token);
        this.relay = {
            sendGroup: (message) => relay.deliver(message),
            entryByToken: async (token) => relay.entry(token),
            groupMailbox: async () => ({ messages: [] }),
            createBlob: async (request) => relay.createBlob(caller, request),
            blobOffset: async (id) => relay.blobOffset(caller, id),
            uploadChunk: async (id, bytes, offset) => relay.uploadChunk(caller, id, bytes, offset),
            downloadBlob: async (id, options) => relay.downloadBlob(caller, id, options),
            acknowledgeBlob: async (id) => relay.acknowledgeBlob(caller, id),
        };
        this.acknowledged = [];
        this.frames = [];
        this.receiptsSent = [];
        this.typing = [];
        this.stream = {
            isReady: true,
            acknowledge: async (keys) => this.acknowledged.push(...keys),
            acknowledgeSoon: async (key) => this.acknowledged.push(key),
            sendGroupEphemeral: (message) => relay.deliverEphemeral(message),
        };
        this.contacts = new ContactBook(this.store, this.relay, {
            recordedKeys: (token) => this.groups.keys.recordedFingerprints(token),
        });
        this.receiving = new Receiving(this);
        this.attachments = new Attachments(this);
        this.groups = new Groups(this);
        this.addEventListener('group-typing', ({ detail }) => this.typing.push(detail));
        this.queue = Promise.resolve();
        relay.accounts.set(caller, { party, messenger: this });
    }

    /** Each frame through the real `Receiving.handle`, one after the other; a failure fails the test. */
    receive(frame) {
        this.frames.push(frame);
        const next = this.queue.then(() => this.receiving.handle(frame));
        this.queue = next.catch(() => {});
        return next;
    }

    /** As Messenger.sendReceipt: to a pinned, unchanged contact only; handed to the peer as if it opened it. */
    async sendReceipt(peer, status, messages) {
        const contact = await this.contacts.contact(peer);
        if (contact.changedKeys) return;
        const receipt = MessageContent.checked(structuredClone(MessageContent.receipt(status, messages)));
        this.receiptsSent.push({ peer: String(peer), status, messages: receipt.messages });
        await this.worldRelay.accounts.get(String(peer)).messenger.receiving.applyReceipt(String(this.token), receipt);
    }

    /** As Messenger.acceptChangedKeys: pins the waiting key and takes in what was held meanwhile. */
    async acceptChangedKeys(token) {
        const { held } = await this.contacts.acceptChangedKeys(await this.store.contact(String(token)));
        for (const frame of held) await this.receive(frame);
    }

    /** As a rotation: this account's keys are `identity` from now on, and the directory publishes them. */
    rotate(identity, json) {
        this.identity = identity;
        this.account.publicKeys = json.publicKeys;
        this.worldRelay.publish(this.token, json);
    }

    async note(peer, text) {
        await this.store.saveMessage({ conversation: peer, id: crypto.randomUUID(), sender: 'note', direction: 'note',
            sentAt: Date.now(), expiresAt: 0, content: { type: 'note', text } });
    }

    emit(type, detail) {
        this.dispatchEvent(new globalThis.CustomEvent(type, { detail }));
    }

    async lines(id) {
        return (await this.store.messages(id)).map((m) => (m.direction === 'note' ? `[${m.kind}] ${m.content.text}`
            : `${m.direction === 'out' ? 'you' : this.groups.nameNow(m.sender)}: ${m.content.text ?? m.content.name}`
                + (m.warnings?.length ? ` (${m.warnings.join('; ')})` : '')));
    }
}

/**
 * A party for the world: `{token, identity, nickname, json: {publicKeys, fingerprint}}`, from a vector party (see
 * tools.mjs `vectorParty`) or from freshly made keys.
 */
export function party(nickname, { token, identity, json }) {
    return { token, identity, nickname, json };
}

/** The JSON form of an identity's public keys with its fingerprint, as the directory publishes them. */
export function publishedKeys(identity) {
    return { publicKeys: identity.publicKeys.toJSON(), fingerprint: identity.fingerprint.hex };
}

/** The group vector's sender and two recipients as alice, bob and carol, each with its published keys as `json`. */
export async function vectorParties(vector) {
    const raw = [vector.sender, ...vector.recipients];
    return Promise.all(raw.map(async (json, index) => ({
        ...(await vectorParty(json)), nickname: ['alice', 'bob', 'carol'][index], json,
    })));
}
