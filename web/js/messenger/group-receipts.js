/**
 * Receipts in groups (SECURITY.md, "Receipts in groups"), as WotsClient's `ConversationKeeper+Groups` and
 * `ConversationHistory+Groups`: a member confirms a group text or file to its **sender alone**, with an ordinary 1:1
 * `receipt` naming the group message's (sender, id): `delivered` once stored here, `read` once the person saw it
 * (unless read receipts are off). The sender kept, with each message it sent, the members it went to (`members`:
 * token → status); a receipt moves only the status of a member the message went to, only forward, and the message's
 * own status is the least any member reached. A receipt from anyone else changes nothing.
 */

import { MessageContent } from '../content/message-content.js';

const statusRank = { sending: 0, failed: 0, sent: 1, delivered: 2, read: 3 };

export class GroupReceipts {
    /** @param {import('./groups.js').Groups} groups */
    constructor(groups) {
        this.groups = groups;
        this.reading = Promise.resolve();
    }

    get messenger() {
        return this.groups.messenger;
    }

    /**
     * Applies a receipt from `peer` (its verified sender) naming this account's messages `keys`.
     * @returns {Promise<Set<string>>} the keys (`sender/id`, lower case) that are group messages sent from here,
     *   whether or not the receipt moved them: the 1:1 conversation leaves those alone
     */
    async apply(peer, status, keys) {
        const { store } = this.messenger;
        const groupMessages = new Set();
        const changed = new Set();
        if (keys.length === 0) return groupMessages;
        const groups = (await this.groups.book.entries()).map((entry) => entry.id);
        for (const key of keys) {
            for (const id of groups) {
                const message = await store.message(id, key.sender, key.id);
                if (!message || message.direction !== 'out' || !message.members) continue;
                groupMessages.add(`${key.sender}/${key.id}`.toLowerCase());
                const now = message.members[peer];
                if (now === undefined || statusRank[now] >= statusRank[status]) break;
                const members = { ...message.members, [peer]: status };
                // The message's own status: the least any member reached, once every member has it.
                const least = Math.min(...Object.values(members).map((each) => statusRank[each]));
                const reached = { [statusRank.delivered]: 'delivered', [statusRank.read]: 'read' }[least];
                await store.saveMessage({ ...message, members, status: reached ?? message.status });
                changed.add(id);
                break;
            }
        }
        for (const id of changed) this.messenger.emit('conversation', id);
        return groupMessages;
    }

    /** Tells the sender of a group message this client stored it: a `delivered` receipt to it alone. */
    async confirmDelivered(sender, id) {
        try {
            await this.messenger.sendReceipt(sender, 'delivered', [{ sender, id }]);
        } catch {
            // A receipt is a courtesy: never a reason to fail taking the message in.
        }
    }

    /**
     * Marks the group's unread texts and files read, and tells each sender which of theirs were (one `read` receipt
     * per sender), unless read receipts are off. Runs one call at a time, so a redraw never sends a receipt twice.
     */
    markRead(id) {
        const next = this.reading.then(() => this.markReadNow(id));
        this.reading = next.catch(() => {});
        return next;
    }

    async markReadNow(id) {
        const { store } = this.messenger;
        const unread = (await store.messages(id)).filter((message) => message.direction === 'in' && !message.read
            && message.content && MessageContent.wantsReceipt(message.content));
        if (unread.length === 0) return;
        for (const message of unread) await store.saveMessage({ ...message, read: true });
        if (!this.messenger.readReceipts) return;
        const bySender = new Map();
        for (const { sender, id: messageID } of unread) {
            bySender.set(sender, [...(bySender.get(sender) ?? []), { sender, id: messageID }]);
        }
        for (const [sender, keys] of bySender) {
            try {
                await this.messenger.sendReceipt(sender, 'read', keys);
            } catch {
                // As above: the message stays read here either way.
            }
        }
    }

    /**
     * How far a group message this account sent got: `{members, delivered, read}` (delivered counts those who read
     * it too), or null for a message kept without its members.
     */
    static counts(message) {
        const statuses = Object.values(message.members ?? {});
        if (statuses.length === 0) return null;
        return {
            members: statuses.length,
            delivered: statuses.filter((status) => statusRank[status] >= statusRank.delivered).length,
            read: statuses.filter((status) => status === 'read').length,
        };
    }

    /** The mark the chat shows, as the CLI's history: `✓`, `✓✓ 2/3`, `✓✓ 2/3 · read 1/3`. */
    static mark(message) {
        const counts = GroupReceipts.counts(message);
        if (counts === null) return '✓';
        const delivered = counts.delivered === 0 ? '✓' : `✓✓ ${counts.delivered}/${counts.members}`;
        return counts.read === 0 ? delivered : `${delivered} · read ${counts.read}/${counts.members}`;
    }
}
