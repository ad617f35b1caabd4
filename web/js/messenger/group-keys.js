/**
 * Members' keys in groups, as WotsClient's `Messenger+GroupKeys` (SECURITY.md, "Key changes in groups"): each member's
 * fingerprint in the group state is the key an admin saw when adding it. Every member compares each member's published
 * key with the recorded one (marked in group info, named when the chat opens), and the state learns a new key only
 * through a signed `rekey`: an admin records any member's key, any member its own, and only keys pinned here (a key
 * not yet accepted is refused, so nobody records a key they did not accept). Receiving a `rekey` does not make this
 * account trust the new key: its own pinned key still decides what it wraps for.
 */

import { Fingerprint } from '../crypto/fingerprint.js';
import { GroupMember } from '../crypto/group-state.js';
import { Token } from '../crypto/token.js';
import { RelayError } from '../protocol/relay-error.js';
import { ContactBook } from './contact-book.js';

export class GroupKeys {
    /** @param {import('./groups.js').Groups} groups */
    constructor(groups) {
        this.groups = groups;
    }

    get messenger() {
        return this.groups.messenger;
    }

    /**
     * The fingerprints (hex) the groups this account is a member of recorded for `token`: a contact never pinned here
     * is pinned only with one of them (ContactBook).
     */
    async recordedFingerprints(token) {
        const recorded = new Set();
        for (const { chain } of await this.groups.book.entries()) {
            const member = chain.isMember ? chain.current.member(Token.parse(String(token))) : null;
            if (member) recorded.add(member.fingerprint.hex);
        }
        return [...recorded];
    }

    /**
     * Records members' keys in the group state with a `rekey` update: for `tokens`, their keys as pinned here (each
     * checked against the directory first; a changed or never-accepted key is refused with `key_changed`); with no
     * tokens, this account's own current key. Only an admin may record another member's key.
     * @throws {RelayError} `invalid_input` when the group records those keys already or this account may not record
     *   them, `key_changed`
     */
    async rekey(id, tokens = []) {
        const fingerprints = new Map();
        if (tokens.length === 0) fingerprints.set(String(this.groups.owner), this.messenger.identity.fingerprint);
        for (const contact of await this.groups.sending.checkedContacts(tokens)) {
            fingerprints.set(contact.token, Fingerprint.fromHex(contact.fingerprint));
        }
        return this.groups.change(id, 'rekey', (current) => {
            for (const token of fingerprints.keys()) {
                if (current.member(Token.parse(token)) === null) {
                    throw new RelayError('invalid_input', `${this.groups.nameNow(token)} is not a member of `
                        + `${current.name}`);
                }
            }
            const members = current.members.map((member) => {
                const fingerprint = fingerprints.get(String(member.token));
                return fingerprint ? new GroupMember({ ...member, fingerprint }) : member;
            });
            if (members.every((member, index) => member.equals(current.members[index]))) {
                throw new RelayError('invalid_input', `${current.name} records those keys already; nothing to do`);
            }
            return members;
        });
    }

    /**
     * How each member's key stands here: `recorded` whether the directory publishes the key the group recorded (null
     * when the directory cannot say), `pinned` `self`, `pinned`, `unpinned` or `changed` (since pinning, or never
     * accepted), and `canRecord` when this account may record the published key now (its own key, or as an admin a
     * member's key pinned here).
     * @returns {Promise<Array<{token: string, self: boolean, recorded: boolean | null, pinned: string,
     *   canRecord: boolean}>>} in the state's member order
     */
    async memberKeys(id) {
        const entry = await this.groups.book.entry(id);
        if (!entry) return [];
        const { current, isMember } = entry.chain;
        const admin = isMember && current.isAdmin(this.groups.owner);
        const { relay, store, identity } = this.messenger;
        return Promise.all(current.members.map(async (member) => {
            const token = String(member.token);
            if (member.token.equals(this.groups.owner)) {
                const recorded = member.fingerprint.equals(identity.fingerprint);
                return { token, self: true, recorded, pinned: 'self', canRecord: isMember && !recorded };
            }
            let published;
            try {
                published = await ContactBook.checkedEntry(await relay.entryByToken(token));
            } catch {
                return { token, self: false, recorded: null, pinned: 'unknown', canRecord: false };
            }
            const contact = await store.contact(token);
            let pinned = 'unpinned';
            if (contact) {
                const same = contact.publicKeys && !contact.changedKeys
                    && contact.fingerprint === published.fingerprint;
                pinned = same ? 'pinned' : 'changed';
            }
            const recorded = published.fingerprint === member.fingerprint.hex;
            return { token, self: false, recorded, pinned, canRecord: admin && !recorded && pinned === 'pinned' };
        }));
    }

    /**
     * The warnings a group chat shows when it opens: this account's own key not the recorded one, a member whose key
     * changed since pinning, a member whose published key is not the recorded one; each with the step that settles it.
     */
    async warnings(id) {
        const entry = await this.groups.book.entry(id);
        if (!entry?.chain.isMember) return [];
        const group = entry.chain.current.name;
        const lines = [];
        for (const key of await this.memberKeys(id)) {
            const name = key.self ? 'you' : await this.groups.nameOf(key.token);
            if (key.self && !key.recorded) {
                lines.push(`your key is not the one ${group} recorded (you rotated it?): record it in group info`);
            } else if (key.pinned === 'changed') {
                lines.push(`${name}'s key is not the one you accepted: messages to ${group} are refused until you `
                    + `compare the safety number in your chat with ${name} and accept it`);
            } else if (key.recorded === false) {
                lines.push(`${name}'s key is not the one ${group} recorded: compare the safety number in your chat `
                    + `with ${name}, then an admin records it in group info`);
            }
        }
        return lines;
    }
}
