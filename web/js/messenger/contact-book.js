/**
 * Pinned keys, as WotsClient's `ContactBook`: the first directory entry seen for a token is pinned (trust on first
 * use, after checking that its fingerprint is the hash of its keys). A different key later — a send refused with
 * `recipient_key_changed`, or mail signed by another key — is kept beside the pinned one as `changedKeys` and the
 * conversation refuses to send or open until the user compares the new safety number and accepts it.
 *
 * Inside a group there is no trust on first use (SECURITY.md, "Key changes in groups"): a member never pinned here
 * whose published key is not the one a group this account belongs to recorded (the key its admin saw) is not pinned.
 * It is kept as a contact `recordedOnly`, with the recorded fingerprint, no keys, and the published entry waiting in
 * `changedKeys`, so every path that refuses a changed key refuses it, until the user compares the safety number in
 * the 1:1 chat and accepts it (or the directory publishes the recorded key after all).
 */

import { fingerprintOf } from '../crypto/fingerprint.js';
import { PublicKeys } from '../crypto/keys.js';
import { RelayError } from '../protocol/relay-error.js';

export class ContactBook {
    /**
     * @param {import('../storage/local-store.js').LocalStore} store
     * @param {import('../protocol/relay-client.js').RelayClient} relay
     * @param {{recordedKeys?: (token: string) => Promise<string[]>}} [options] the fingerprints (hex) the groups this
     *   account belongs to recorded for a token (none: plain trust on first use)
     */
    constructor(store, relay, { recordedKeys = async () => [] } = {}) {
        this.store = store;
        this.relay = relay;
        this.recordedKeys = recordedKeys;
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

    /**
     * The pinned contact of `token`, pinning the directory's entry on first use, unless a group recorded another key
     * for it: then a `recordedOnly` contact whose published key waits as `changedKeys`.
     */
    async contact(token) {
        const known = await this.store.contact(String(token));
        if (known) return known;
        const entry = await ContactBook.checkedEntry(await this.relay.entryByToken(String(token)));
        const recorded = await this.recordedKeys(entry.token);
        const contact = recorded.length === 0 || recorded.includes(entry.fingerprint)
            ? { ...entry, pinnedAt: Date.now(), changedKeys: null, disappearAfter: 0, held: [] }
            : {
                token: entry.token, nickname: entry.nickname, publicKeys: null, fingerprint: recorded[0],
                recordedOnly: true, pinnedAt: null, changedKeys: entry, disappearAfter: 0, held: [],
            };
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
        if (entry.fingerprint === contact.fingerprint) {
            if (!contact.recordedOnly) return contact;
            // The directory publishes the key the group recorded after all: that is the key to pin.
            const pinned = { ...contact, ...entry, recordedOnly: false, changedKeys: null, pinnedAt: Date.now() };
            await this.store.saveContact(pinned);
            return pinned;
        }
        if (contact.changedKeys?.fingerprint === entry.fingerprint) return contact;
        const changed = { ...contact, changedKeys: entry };
        await this.store.saveContact(changed);
        return changed;
    }

    /** Pins the changed key the user accepted; returns the contact and the envelopes held meanwhile. */
    async acceptChangedKeys(contact) {
        if (!contact.changedKeys) return { contact, held: [] };
        const { publicKeys, fingerprint, nickname } = contact.changedKeys;
        const accepted = {
            ...contact, publicKeys, fingerprint, nickname, changedKeys: null, recordedOnly: false, held: [],
            pinnedAt: Date.now(),
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
