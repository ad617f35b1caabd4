/**
 * What this account sends to a group, as WotsClient's `Messenger+GroupSending`, `+GroupContent` and
 * `GroupSession+Live`: texts and files under the group's disappearing timer (kept with the members each went to, so
 * their receipts count), timer changes, and typing (one ephemeral group envelope). Before anything is wrapped, every
 * member's published key is checked against the pinned one (a member never pinned here is pinned only with the key the
 * group recorded: ContactBook). Posts run one after the other, so the relay stores them in sender-sequence order.
 */

import { sealGroupEnvelope } from '../crypto/group-envelope-sealing.js';
import { PublicKeys } from '../crypto/keys.js';
import { newMessageID } from '../crypto/message-id.js';
import { Token } from '../crypto/token.js';
import { MessageContent } from '../content/message-content.js';
import { RelayError } from '../protocol/relay-error.js';
import { GroupBook } from './group-book.js';

export class GroupSending {
    /** @param {import('./groups.js').Groups} groups */
    constructor(groups) {
        this.groups = groups;
        this.posting = Promise.resolve();
        /** Sequences of groups being created, counted here until the relay hands the `create` back. */
        this.pendingSequences = new Map();
    }

    get messenger() {
        return this.groups.messenger;
    }

    get owner() {
        return this.groups.owner;
    }

    /**
     * The group as it stands now, when this account may send to it.
     * @returns {Promise<{entry: object, state: import('../crypto/group-state.js').GroupState, recipients: Token[]}>}
     * @throws {RelayError} `invalid_input` once this account left or was removed, or is the only member
     */
    async memberState(id) {
        const entry = await this.groups.book.entry(id);
        const chain = entry?.chain;
        if (!chain?.isMember) throw new RelayError('invalid_input', 'you are no longer a member of this group');
        const recipients = chain.current.tokens.filter((token) => !token.equals(this.owner));
        if (recipients.length === 0) throw new RelayError('invalid_input', 'you are the only member; nothing was sent');
        return { entry, state: chain.current, recipients };
    }

    async sendText(id, text) {
        const { entry, state, recipients } = await this.memberState(id);
        const content = MessageContent.text(text, { disappearAfter: GroupBook.timerOf(entry) });
        return this.sendKept(id, content, { state, recipients });
    }

    /**
     * Encrypts a file, uploads it once as a blob every other member may fetch (and nobody else: the blob API's
     * recipients, SECURITY.md "Attachments in groups"), expiring with its message, then announces it to the group.
     * Keys are checked before the upload, so a changed one costs no upload.
     */
    async sendAttachment(id, { name, mediaType, bytes }, onProgress) {
        const { messenger } = this;
        if (messenger.sendVersion < 2) {
            throw new RelayError('unsupported_version', 'this relay takes only text (envelope version 1): no files');
        }
        const { entry, state, recipients } = await this.memberState(id);
        await this.checkedContacts(recipients);
        const disappearAfter = GroupBook.timerOf(entry);
        // Dated before the upload, so a disappearing file's blob goes exactly when its message does.
        const sentAt = Date.now();
        const expiresAt = disappearAfter ? sentAt + disappearAfter * 1000 : undefined;
        const fields = await messenger.attachments.upload(recipients.map(String), bytes, { name, mediaType },
            onProgress, expiresAt);
        const content = { type: 'attachment', ...fields };
        if (disappearAfter) content.disappearAfter = disappearAfter;
        const messageID = newMessageID().toLowerCase();
        await messenger.store.saveAttachment({ conversation: id, sender: String(this.owner), id: messageID }, bytes);
        return this.sendKept(id, content, { state, recipients, messageID, sentAt });
    }

    /**
     * Posts a text or an attachment to `recipients` and keeps it in the group's conversation with each member's
     * status (`members`: token → `sent`, moved on by their receipts; group-receipts.js).
     */
    async sendKept(id, content, { state, recipients, messageID = newMessageID().toLowerCase(), sentAt = Date.now() }) {
        const { store } = this.messenger;
        const after = MessageContent.expiresAfter(content);
        const record = {
            conversation: id, id: messageID, sender: String(this.owner), direction: 'out', sentAt,
            expiresAt: after ? sentAt + after * 1000 : 0, content, status: 'sending',
            members: Object.fromEntries(recipients.map((token) => [String(token), 'sent'])),
        };
        await store.saveMessage(record);
        this.messenger.emit('conversation', id);
        try {
            await this.post(content, state, recipients, { messageID, sentAt });
        } catch (failure) {
            await store.saveMessage({ ...((await store.message(id, record.sender, messageID)) ?? record),
                status: 'failed' });
            this.messenger.emit('conversation', id);
            throw failure;
        }
        // Members' receipts may have come back before the relay's answer: keep what they moved.
        const stored = (await store.message(id, record.sender, messageID)) ?? record;
        const sent = { ...stored, status: ['sending', 'failed'].includes(stored.status) ? 'sent' : stored.status };
        await store.saveMessage(sent);
        this.messenger.emit('conversation', id);
        return sent;
    }

    /**
     * Sets the group's disappearing timer for every member: a `settings` group message (which never disappears
     * itself). Its own group messages never come back to this account, so it applies the change once the relay took it.
     */
    async setTimer(id, seconds) {
        const { entry, state, recipients } = await this.memberState(id);
        const sentAt = Date.now();
        await this.post(MessageContent.settings(seconds), state, recipients, { sentAt });
        const applied = await this.groups.applyTimer(entry, seconds, sentAt, String(this.owner));
        const line = `you set disappearing messages ${GroupBook.describeTimer(seconds)}`;
        await this.groups.receiving.note(entry, applied ? line : `${line} (a later change is kept)`, 'membership');
    }

    /**
     * Tells the other members this side started or stopped typing: one group envelope (`typing`, a slot for every
     * other member whose key is pinned here and unchanged, one signature) sent as an ephemeral `send_group` frame the
     * relay never stores. It carries this account's next sender sequence without taking it. Nothing is sent while the
     * stream is down or once this account is no longer a member; a lost indicator is harmless.
     * @returns {Promise<boolean>} whether the relay took it
     */
    async sendTyping(id, state) {
        const { messenger } = this;
        if (!messenger.stream.isReady || messenger.sendVersion < 2) return false;
        const entry = await this.groups.book.entry(id);
        if (!entry?.chain.isMember) return false;
        const { current } = entry.chain;
        const keys = [];
        for (const token of current.tokens) {
            if (token.equals(this.owner)) continue;
            const contact = await messenger.store.contact(String(token));
            if (!contact?.publicKeys || contact.changedKeys) continue;
            keys.push({ token, publicKeys: PublicKeys.fromJSON(contact.publicKeys) });
        }
        if (keys.length === 0) return false;
        try {
            const { envelope, slots } = await sealGroupEnvelope({
                plaintext: MessageContent.encode(MessageContent.typing(state)),
                sender: this.owner,
                identity: messenger.identity,
                groupID: current.id,
                membershipVersion: current.version,
                membershipStateHash: await current.stateHash(),
                senderSequence: entry.nextSequence ?? 1,
                recipients: keys,
            });
            await messenger.stream.sendGroupEphemeral({ body: envelope.serialized, slots });
            return true;
        } catch {
            return false;
        }
    }

    /**
     * Seals `content` under the state `named` for `recipients` (this account's own keys from the account, every other
     * member's pinned keys after checking the directory still publishes them) with the next sender sequence, and
     * posts it. Posts run one after the other, each waiting for the relay's answer to the one before: the relay then
     * stores this account's group messages in the order of their sender sequences, as members expect them (a lower
     * sequence after a higher one is refused as a replay).
     * @throws {RelayError} `key_changed` naming the member, or the relay's refusal
     */
    post(content, named, recipients, options = {}) {
        const posted = this.posting.then(() => this.sealAndPost(content, named, recipients, options));
        this.posting = posted.catch(() => {});
        return posted;
    }

    async sealAndPost(content, named, recipients, { messageID, sentAt = Date.now() }) {
        const others = recipients.filter((token) => !token.equals(this.owner));
        const contacts = await this.checkedContacts(others);
        const keys = contacts.map((contact) => ({
            token: Token.parse(contact.token), publicKeys: PublicKeys.fromJSON(contact.publicKeys),
        }));
        if (others.length !== recipients.length) {
            keys.push({ token: this.owner, publicKeys: PublicKeys.fromJSON(this.messenger.account.publicKeys) });
        }
        const after = MessageContent.expiresAfter(content);
        const senderSequence = await this.takeSequence(named.id.hex);
        const { envelope, slots } = await sealGroupEnvelope({
            plaintext: MessageContent.encode(content),
            messageID,
            sentAt,
            expiresAt: after ? sentAt + after * 1000 : 0,
            sender: this.owner,
            identity: this.messenger.identity,
            groupID: named.id,
            membershipVersion: named.version,
            membershipStateHash: await named.stateHash(),
            senderSequence,
            recipients: keys,
        });
        return this.messenger.relay.sendGroup({ body: envelope.serialized, slots });
    }

    /**
     * This account's next sender sequence in the group. A group being created is not in the book before the relay
     * hands its `create` back: its sequences are counted here until then, and the book starts after them.
     */
    async takeSequence(id) {
        if (await this.groups.book.entry(id)) return this.groups.book.takeSequence(id);
        const next = this.pendingSequences.get(id) ?? 1;
        this.pendingSequences.set(id, next + 1);
        return next;
    }

    /**
     * The pinned contacts of `tokens`, each checked against the directory first: a member whose published key is not
     * the pinned one is refused (`key_changed`) until the user accepts the new key in their chat, and so is a member
     * never pinned here whose published key is not the one a group recorded (ContactBook: no trust on first use
     * inside a group).
     */
    async checkedContacts(tokens) {
        const { contacts } = this.messenger;
        const checked = await Promise.all(tokens.map(async (token) =>
            contacts.recheck(await contacts.contact(String(token)))));
        const changed = checked.find((contact) => contact.changedKeys);
        if (changed) {
            this.messenger.emit('contacts');
            const what = changed.recordedOnly ? 'is not the one the group recorded' : 'changed';
            throw new RelayError('key_changed', `${changed.nickname}'s key ${what}: compare the safety number in `
                + 'your chat with them and accept it first; nothing was sent to the group');
        }
        return checked;
    }
}
