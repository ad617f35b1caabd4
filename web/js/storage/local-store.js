/**
 * What the browser keeps, in one IndexedDB database per origin (named as WotsClient's `LocalStore`):
 *
 * - `account`: the token, nickname, relay id and public keys in clear; the private keys (PKCS#8) sealed by the
 *   `StorageKey`; the `StorageKey` itself as a non-extractable CryptoKey (IndexedDB stores CryptoKeys as they are).
 * - `contacts`: pinned directory entries (token, nickname, public keys, fingerprint) and a changed key waiting for
 *   the user's acceptance; public data, kept in clear.
 * - `messages`: each message sealed by the `StorageKey`; only the conversation and the time are in clear, for the
 *   index. A disappearing message is deleted at its `expiresAt`.
 * - `attachments`: the decrypted bytes of a message's attachment (or a contact's avatar picture), sealed by the
 *   `StorageKey` under the message's key, so a reload still shows them; deleted with their message.
 * - `groups` (since version 3): the group book, one record per group under its id (32 hex digits): the chain of
 *   states held, the last sender sequence seen from each member, this account's next sequence, the (sender, id) of
 *   group messages already taken in; sealed by the `StorageKey` under `group/ID`. A group's messages and membership
 *   lines are ordinary `messages` whose conversation is the group id.
 *
 * `forget()` (logout) deletes the whole database.
 */

import { StorageKey } from './storage-key.js';

const databaseName = 'wots';
const version = 3;

export class LocalStore {
    constructor(database) {
        this.database = database;
        this.storageKey = null;
    }

    static async open() {
        const database = await request(indexedDB.open(databaseName, version), (open) => {
            open.onupgradeneeded = (event) => {
                const db = open.result;
                if (event.oldVersion < 1) {
                    db.createObjectStore('account');
                    db.createObjectStore('contacts', { keyPath: 'token' });
                    const messages = db.createObjectStore('messages', { keyPath: 'key' });
                    messages.createIndex('conversation', ['conversation', 'at']);
                    messages.createIndex('expiresAt', 'expiresAt');
                }
                if (event.oldVersion < 2) db.createObjectStore('attachments');
                // Version 3 adds groups; everything kept before stays as it was.
                if (event.oldVersion < 3) db.createObjectStore('groups');
            };
        });
        // Another tab's logout deletes the database: this connection steps aside instead of blocking it.
        database.onversionchange = () => database.close();
        return new LocalStore(database);
    }

    close() {
        this.database.close();
    }

    /** Deletes every key, contact and message of this origin. */
    static async forget(store) {
        store?.database.close();
        await request(indexedDB.deleteDatabase(databaseName));
    }

    // Account

    /** @param {{token: string, nickname: string, relayID: string, publicKeys: object, privateKeys: object,
     *   storageKey: StorageKey, avatar?: object}} account */
    async saveAccount({ storageKey, privateKeys, ...clear }) {
        const sealedKeys = await storageKey.seal('account/privateKeys', privateKeys);
        await this.put('account', { ...clear, sealedKeys, storageKey: storageKey.key }, 'self');
        this.storageKey = storageKey;
    }

    /** The account with its private keys opened, or null when nobody is logged in here. */
    async loadAccount() {
        const record = await this.get('account', 'self');
        if (!record) return null;
        const { sealedKeys, storageKey: key, ...clear } = record;
        this.storageKey = new StorageKey(key);
        return { ...clear, privateKeys: await this.storageKey.open('account/privateKeys', sealedKeys) };
    }

    async updateAccount(changes) {
        const record = await this.get('account', 'self');
        await this.put('account', { ...record, ...changes }, 'self');
    }

    // Contacts

    contact(token) {
        return this.get('contacts', String(token));
    }

    contacts() {
        return this.getAll('contacts');
    }

    saveContact(contact) {
        return this.put('contacts', contact);
    }

    // Messages

    /** Stores (or replaces) a message of the conversation with `conversation` (the peer's token). */
    async saveMessage(message) {
        const key = `${message.conversation}/${message.sender}/${message.id}`.toLowerCase();
        const sealed = await this.storageKey.seal(`message/${key}`, message);
        await this.put('messages', {
            key,
            conversation: message.conversation,
            at: message.sentAt,
            expiresAt: message.expiresAt || Number.MAX_SAFE_INTEGER,
            sealed,
        });
    }

    async message(conversation, sender, id) {
        const key = `${conversation}/${sender}/${id}`.toLowerCase();
        const record = await this.get('messages', key);
        return record ? this.storageKey.open(`message/${key}`, record.sealed) : null;
    }

    /** The conversation's messages, oldest first. */
    async messages(conversation) {
        const range = IDBKeyRange.bound([conversation, 0], [conversation, Number.MAX_SAFE_INTEGER]);
        const records = await this.getAll('messages', range, 'conversation');
        return Promise.all(records.map((record) => this.storageKey.open(`message/${record.key}`, record.sealed)));
    }

    /** Deletes every message whose `expiresAt` has passed, with its attachment; returns them (their conversation,
     *  sender and id). */
    async deleteExpired(now = Date.now()) {
        const records = await this.getAll('messages', IDBKeyRange.upperBound(now), 'expiresAt');
        const open = (record) => this.storageKey.open(`message/${record.key}`, record.sealed);
        const expired = await Promise.all(records.map(open));
        await Promise.all(records.map((record) => this.delete('messages', record.key)));
        await Promise.all(records.map((record) => this.delete('attachments', record.key)));
        return expired;
    }

    // Groups: each group's record (`GroupBook`), sealed under its id.

    async saveGroup(id, record) {
        await this.put('groups', await this.storageKey.seal(`group/${id}`, record), String(id));
    }

    async group(id) {
        const sealed = await this.get('groups', String(id));
        return sealed ? this.storageKey.open(`group/${id}`, sealed) : null;
    }

    /** Every group record, with its id. */
    async groups() {
        const store = this.transaction('groups', 'readonly');
        const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
        return Promise.all(keys.map(async (id, index) => ({
            id, ...(await this.storageKey.open(`group/${id}`, values[index])),
        })));
    }

    // Attachments: decrypted bytes beside their message (`owner`: `{conversation, sender, id}`), or a contact's
    // avatar picture (`owner`: `avatar/TOKEN`).

    async saveAttachment(owner, bytes) {
        const key = attachmentKey(owner);
        await this.put('attachments', await this.storageKey.sealBytes(`attachment/${key}`, bytes), key);
    }

    /** The bytes kept for `owner`, or null. */
    async attachment(owner) {
        const key = attachmentKey(owner);
        const record = await this.get('attachments', key);
        return record ? this.storageKey.openBytes(`attachment/${key}`, record) : null;
    }

    // IndexedDB, promised

    transaction(storeName, mode) {
        return this.database.transaction(storeName, mode).objectStore(storeName);
    }

    get(storeName, key) {
        return request(this.transaction(storeName, 'readonly').get(key));
    }

    getAll(storeName, range, index) {
        const store = this.transaction(storeName, 'readonly');
        return request((index ? store.index(index) : store).getAll(range));
    }

    put(storeName, value, key) {
        return request(this.transaction(storeName, 'readwrite').put(value, key));
    }

    delete(storeName, key) {
        return request(this.transaction(storeName, 'readwrite').delete(key));
    }
}

function attachmentKey(owner) {
    if (typeof owner === 'string') return owner;
    return `${owner.conversation}/${owner.sender}/${owner.id}`.toLowerCase();
}

function request(idbRequest, prepare) {
    return new Promise((resolve, reject) => {
        prepare?.(idbRequest);
        idbRequest.onsuccess = () => resolve(idbRequest.result);
        idbRequest.onerror = () => reject(idbRequest.error);
        // A deletion another tab blocks goes ahead when that tab closes; an upgrade (to version 3) waits for it,
        // since other tabs close their connection on `versionchange`.
        if (!(idbRequest instanceof IDBOpenDBRequest) || !idbRequest.onupgradeneeded) {
            idbRequest.onblocked = () => resolve(undefined);
        }
    });
}
