/**
 * Each `group_message` slot from the stream, as WotsClient's `Messenger+GroupInbox` and `GroupBook+Receiving`: open
 * it (the sender's key checked as for 1:1 mail: a changed key holds the slot, unacknowledged, until the user accepts
 * it), apply an update through the group's chain (or join by it), admit any other content (a text or a file kept
 * and its sender told `delivered`, a timer change applied in order), keep what is shown (a membership change, a
 * refusal or a warning as a line in the group's conversation), and acknowledge it by (sender, id). An ephemeral slot
 * (typing) is never kept, applied or acknowledged. Runs in the messenger's one receiving queue, one frame after the
 * other.
 */

import { fromBase64 } from '../crypto/bytes.js';
import { GroupEnvelope } from '../crypto/group-envelope.js';
import { openGroupEnvelope } from '../crypto/group-envelope-sealing.js';
import { GroupState } from '../crypto/group-state.js';
import { PublicKeys } from '../crypto/keys.js';
import { messageIDFromBytes } from '../crypto/message-id.js';
import { Token } from '../crypto/token.js';
import { MessageContent } from '../content/message-content.js';
import { GroupBook } from './group-book.js';
import { GroupChain } from './group-chain.js';

/**
 * Content that shows nothing in a group: receipts travel 1:1 (group-receipts.js), typing counts only when it came
 * ephemerally, profiles and checkpoints are 1:1 matters. Such a message still counts for its sender's sequence.
 */
const silentInGroups = new Set(['receipt', 'typing', 'profile', 'checkpoint']);

/** How far from this clock a typing indicator's `sentAt` may be: the relay could hand an old one out again. */
export const typingFreshness = 60_000;

export class GroupReceiving {
    /** @param {import('./groups.js').Groups} groups */
    constructor(groups) {
        this.groups = groups;
    }

    get messenger() {
        return this.groups.messenger;
    }

    get book() {
        return this.groups.book;
    }

    get owner() {
        return this.groups.owner;
    }

    nameOf(token) {
        return this.groups.nameOf(token);
    }

    nameNow(token) {
        return this.groups.nameNow(token);
    }

    learnNames(tokens) {
        return this.groups.learnNames(tokens);
    }

    /** Takes in one `group_message` frame. */
    async receive(frame) {
        const body = fromBase64(frame.body ?? '');
        const slot = fromBase64(frame.slot ?? '');
        let envelope;
        try {
            envelope = GroupEnvelope.fromSerialized(body);
        } catch {
            // Nothing can be read or refused by name; a body long enough to name its (sender, id) is acknowledged.
            if (body?.length >= 33) {
                const sender = String(new Token(body.slice(17, 33)));
                await this.acknowledge({ sender, id: messageIDFromBytes(body.slice(1, 17)).toLowerCase() });
            }
            return;
        }
        const { header } = envelope;
        const id = header.groupID.hex;
        const key = { sender: String(header.sender), id: header.messageID.toLowerCase() };
        let entry = await this.book.entry(id);
        if (GroupBook.hasSeen(entry, key)) {
            await this.acknowledge(key);
            return;
        }
        const senderKeys = await this.senderKeys(header, frame, entry);
        if (senderKeys === null) return;
        let content;
        try {
            const opened = await openGroupEnvelope(envelope, {
                slot, recipient: this.owner, identity: this.messenger.identity, senderKeys,
            });
            content = MessageContent.decode(opened.plaintext);
            MessageContent.checkTimer(content, header);
        } catch (error) {
            await this.refused(entry, header, `could not read a message from ${await this.nameOf(key.sender)}: `
                + `${error.message}`);
            await this.acknowledge(key);
            return;
        }
        if (content.type === 'group_update') {
            entry = await this.takeUpdate(entry, header, content);
        } else {
            entry = await this.takeMessage(entry, header, content);
        }
        if (entry) {
            GroupBook.markSeen(entry, key);
            await this.book.save(entry);
        }
        await this.acknowledge(key);
        this.messenger.emit('group', id);
        this.messenger.emit('conversation', id);
    }

    /**
     * Takes in one ephemeral `group_message` frame (schema/stream.md, rule 8: no `seq`): never acknowledged, never
     * kept, never applied to the chain (it takes no sender sequence). It counts only as `typing`, only from a member of
     * the state it names and of the current one whose key is pinned here (no directory lookup, no pinning for a typing
     * indicator), and only when its `sentAt` is within a minute of this clock; anything else is dropped unseen.
     * @returns {Promise<boolean>} whether it was shown (a `group-typing` event: `{group, member, state}`)
     */
    async receiveEphemeral(frame, now = Date.now()) {
        let envelope;
        try {
            envelope = GroupEnvelope.fromSerialized(fromBase64(frame.body ?? ''));
        } catch {
            return false;
        }
        const { header } = envelope;
        if (header.sender.equals(this.owner)) return false;
        if (Math.abs(Number(header.sentAtMilliseconds) - now) > typingFreshness) return false;
        const entry = await this.book.entry(header.groupID.hex);
        if (!entry?.chain.isMember || !entry.chain.admitsEphemeral(header)) return false;
        const contact = await this.messenger.store.contact(String(header.sender));
        if (!contact?.publicKeys || contact.changedKeys || contact.fingerprint !== header.senderFingerprint.hex) {
            return false;
        }
        let content;
        try {
            const opened = await openGroupEnvelope(envelope, {
                slot: fromBase64(frame.slot ?? ''), recipient: this.owner, identity: this.messenger.identity,
                senderKeys: PublicKeys.fromJSON(contact.publicKeys),
            });
            content = MessageContent.decode(opened.plaintext);
        } catch {
            return false;
        }
        // Typing is the only content that may come this way; a text that came ephemerally is dropped, never shown.
        if (content.type !== 'typing') return false;
        this.messenger.emit('group-typing', { group: entry.id, member: String(header.sender), state: content.state });
        return true;
    }

    /** The sender's pinned keys, or null when the slot was held (a changed key) or dropped (an unknown key). */
    async senderKeys(header, frame, entry) {
        const sender = String(header.sender);
        const signedBy = header.senderFingerprint.hex;
        if (header.sender.equals(this.owner)) return PublicKeys.fromJSON(this.messenger.account.publicKeys);
        const { contacts } = this.messenger;
        let contact;
        try {
            contact = await contacts.contact(sender);
        } catch {
            return this.dropped(entry, header, `a message from an account the directory does not know was dropped`);
        }
        if (!contact.changedKeys && signedBy === contact.fingerprint) return PublicKeys.fromJSON(contact.publicKeys);
        if (!contact.changedKeys) contact = await contacts.recheck(contact);
        if (contact.changedKeys?.fingerprint === signedBy) {
            await contacts.hold(contact, frame);
            this.messenger.emit('contacts');
            // A member never pinned here is not trusted on first use with another key than the group recorded.
            const why = contact.recordedOnly ? 'whose key is not the one the group recorded' : 'whose key changed';
            await this.note(entry, `a message from ${contact.nickname}, ${why}, waits until you compare the safety `
                + 'number in your chat with them and accept the key', 'warning',
            `held/${sender}/${header.messageID}`.toLowerCase());
            return null;
        }
        return this.dropped(entry, header, `a message from ${contact.nickname} signed by a key the directory does not `
            + 'publish was dropped');
    }

    async dropped(entry, header, line) {
        await this.note(entry, line, 'refused');
        await this.acknowledge({ sender: String(header.sender), id: header.messageID.toLowerCase() });
        return null;
    }

    async takeUpdate(existing, header, content) {
        const sender = String(header.sender);
        const owner = String(this.owner);
        let update;
        try {
            update = { action: content.action, state: GroupState.fromJSON(content.state) };
        } catch (error) {
            const from = await this.nameOf(sender);
            await this.refused(existing, header, `refused group_update from ${from}: ${error.message}`);
            return existing;
        }
        await this.learnNames([...update.state.tokens, ...(existing?.chain.current.tokens ?? []), header.sender]);
        const name = (token) => this.nameNow(token);
        // Once removed, this account missed later updates: being added again starts a new chain.
        const rejoining = existing && !existing.chain.isMember && update.state.member(this.owner) !== null;
        let entry;
        let previous = null;
        let warnings = [];
        try {
            if (existing && !rejoining) {
                const chain = existing.chain;
                ({ previous, warnings } = await chain.receive(update, header));
                entry = existing;
            } else {
                const chain = await GroupChain.join(update, header, this.owner);
                const id = update.state.id.hex;
                const nextSequence = existing?.nextSequence ?? this.groups.pendingSequences?.get(id) ?? 1;
                entry = { id, chain, nextSequence, seen: existing?.seen ?? [], timer: existing?.timer ?? null };
            }
        } catch (refusal) {
            if (!existing) return null;
            await this.refused(existing, header, `refused ${update.action} from ${name(sender)}: ${refusal.message}`);
            // A refused update is never applied; its sender's sequence is not recorded either.
            return existing;
        }
        if (sender === owner) {
            // This account's own update back from the relay: its next sequence is past it, even when the count kept
            // in memory since sending was lost to a reload.
            entry.nextSequence = Math.max(entry.nextSequence ?? 1, Number(header.senderSequence) + 1);
        }
        const line = GroupBook.describe(update.action, update.state, previous, sender, owner, name);
        await this.book.save(entry);
        await this.note(entry, line, 'membership', `${sender}/${header.messageID}`.toLowerCase(), header);
        await this.warn(entry, warnings, header);
        return entry;
    }

    async takeMessage(entry, header, content) {
        if (!entry) return null;
        const sender = String(header.sender);
        let warnings;
        try {
            warnings = entry.chain.admit(header);
        } catch (refusal) {
            await this.refused(entry, header, `refused ${content.type} from ${await this.nameOf(sender)}: `
                + `${refusal.message}`);
            return entry;
        }
        await this.learnNames([header.sender]);
        if (content.type === 'settings') await this.takeTimer(entry, header, content);
        if (content.type === 'settings' || silentInGroups.has(content.type)) {
            await this.warn(entry, warnings, header);
            return entry;
        }
        // A text, a file, or a type this page does not know (kept, shown as unsupported).
        const expiresAt = Number(header.expiresAtMilliseconds);
        const id = header.messageID.toLowerCase();
        const current = expiresAt === 0 || expiresAt > Date.now();
        const { store } = this.messenger;
        if (current && !(await store.message(entry.id, sender, id))) {
            const message = {
                conversation: entry.id, id, sender, direction: 'in', sentAt: Number(header.sentAtMilliseconds),
                expiresAt, content, warnings: this.describeWarnings(warnings), read: false,
            };
            // The file is fetched once, from the one blob every member may read, and kept beside the message.
            const fetched = content.type === 'attachment'
                ? await this.messenger.receiving.fetchAttachment(message) : {};
            await store.saveMessage({ ...message, ...fetched });
            if (MessageContent.wantsReceipt(content)) await this.groups.receipts.confirmDelivered(sender, id);
        }
        return entry;
    }

    /**
     * A member's timer change (`settings`, admitted like any group message): kept when it is later than the one the
     * group has, by `sentAt` then the setter's token, so every member ends with the same timer whatever order changes
     * crossed in. The line says who set it either way.
     */
    async takeTimer(entry, header, content) {
        const sender = String(header.sender);
        const seconds = content.disappearAfter;
        const applied = await this.groups.applyTimer(entry, seconds, Number(header.sentAtMilliseconds), sender);
        const line = `${this.nameNow(sender)} set disappearing messages ${GroupBook.describeTimer(seconds)}`;
        await this.note(entry, applied ? line : `${line} (a later change is kept)`, 'membership',
            `${sender}/${header.messageID}`.toLowerCase(), header);
    }

    describeWarnings(warnings) {
        const owner = String(this.owner);
        return warnings.filter((warning) => !(warning.kind === 'missedMessages' && warning.from === owner))
            .map((warning) => GroupBook.describeWarning(warning, (token) => this.nameNow(token)));
    }

    async warn(entry, warnings, header) {
        for (const line of this.describeWarnings(warnings)) {
            await this.note(entry, line, 'warning', null, header);
        }
    }

    async refused(entry, header, line) {
        await this.note(entry, line, 'refused', `refused/${header.sender}/${header.messageID}`.toLowerCase(), header);
    }

    /** A line in the group's conversation from the client itself: a membership change, a warning or a refusal. */
    async note(entry, text, kind, id = null, header = null) {
        if (!entry) {
            console.warn('group event for a group this account does not hold:', kind);
            return;
        }
        await this.messenger.store.saveMessage({
            conversation: entry.id, id: id ?? crypto.randomUUID(), sender: 'note', direction: 'note', kind,
            sentAt: header ? Number(header.sentAtMilliseconds) : Date.now(), expiresAt: 0,
            content: { type: 'note', text },
        });
        this.messenger.emit('conversation', entry.id);
    }

    async acknowledge(key) {
        await this.messenger.receiving.acknowledge(key);
    }
}
