/**
 * Pinned keys, as WotsClient's `ContactBook`: the first directory entry seen for a token is pinned (trust on first
 * use, after checking that its fingerprint is the hash of its keys). A different key later — a send refused with
 * `recipient_key_changed`, or mail signed by another key — is kept beside the pinned one as `changedKeys` and the
 * conversation refuses to send or open until the user compares the new safety number and accepts it.
 */

import { fingerprintOf } from '../crypto/fingerprint.js';
import { PublicKeys } from '../crypto/keys.js';
import { RelayError } from '../protocol/relay-error.js';

export class ContactBook {
    /**
     * @param {import('../storage/local-store.js').LocalStore} store
     * @param {import('../protocol/relay-client.js').RelayClient} relay
     */
    constructor(store, relay) {
        this.store = store;
        this.relay = relay;
    }

    /** A directory entry checked: its fingerprint is that of its keys. */
    static async checkedEntry(entry) {
        const publicKeys = PublicKeys.fromJSON(entry.publicKeys);
        const fingerprint = (await fingerprintOf(publicKeys)).hex;
        if (fingerprint !== entry.fingerprint) {
            const reason = `the directory entry of ${entry.nickname} has a wrong fingerprint`;
            throw new RelayError('invalid_response', reason);
        }
        return { token: entry.token, nickname: entry.nickname, publicKeys: entry.publicKeys, fingerprint };
    }

    /** The pinned contact of `token`, pinning the directory's entry on first use. */
    async contact(token) {
        const known = await this.store.contact(token);
        if (known) return known;
        const entry = await ContactBook.checkedEntry(await this.relay.entryByToken(token));
        const contact = { ...entry, pinnedAt: Date.now(), changedKeys: null, disappearAfter: 0, held: [] };
        await this.store.saveContact(contact);
        return contact;
    }

    /** The pinned contact of `nickname` (looked up in the directory, then pinned by token). */
    async contactByNickname(nickname) {
        const entry = await ContactBook.checkedEntry(await this.relay.entryByNickname(nickname));
        return this.contact(entry.token);
    }

    /**
     * Reads the directory again; when it publishes another key than the pinned one, records it as `changedKeys`.
     * @returns {Promise<object>} the contact, with `changedKeys` set when the key changed
     */
    async recheck(contact) {
        const entry = await ContactBook.checkedEntry(await this.relay.entryByToken(contact.token));
        if (entry.fingerprint === contact.fingerprint) return contact;
        const changed = { ...contact, changedKeys: entry };
        await this.store.saveContact(changed);
        return changed;
    }

    /** Pins the changed key the user accepted; returns the contact and the envelopes held meanwhile. */
    async acceptChangedKeys(contact) {
        if (!contact.changedKeys) return { contact, held: [] };
        const { publicKeys, fingerprint, nickname } = contact.changedKeys;
        const accepted = {
            ...contact, publicKeys, fingerprint, nickname, changedKeys: null, held: [], pinnedAt: Date.now(),
        };
        await this.store.saveContact(accepted);
        return { contact: accepted, held: contact.held ?? [] };
    }

    async hold(contact, frame) {
        const held = [...(contact.held ?? [])];
        // A 1:1 frame is named by its envelope's id, a group slot by its body.
        const key = (held) => held.envelope?.id ?? held.body;
        if (!held.some((other) => key(other) === key(frame))) held.push(frame);
        const updated = { ...contact, held };
        await this.store.saveContact(updated);
        return updated;
    }
}
