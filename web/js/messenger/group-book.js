/**
 * The groups this account belongs to (or belonged to), as WotsClient's `GroupBook`: one record per group in the
 * LocalStore (`groups`, sealed under the storage key): the chain, this account's next sender sequence, the (sender,
 * id) of the group messages taken in (the newest 2,000: a replayed slot is dropped, never applied twice), and the
 * group's disappearing timer with the change that set it. A slot signed by a sender's changed key waits with that
 * contact, as 1:1 mail does. Also the sentences a membership change, a timer and a warning are shown as.
 */

import { GroupChain } from './group-chain.js';

const seenKept = 2000;

export class GroupBook {
    /** @param {import('../storage/local-store.js').LocalStore} store */
    constructor(store) {
        this.store = store;
        this.cache = new Map();
        this.writing = Promise.resolve();
    }

    /** The group's entry `{id, chain, nextSequence, seen, timer}`, or null when this account never joined it. */
    entry(id) {
        // The promise is kept, so two callers at once get the one object; a group not held is looked up again.
        if (!this.cache.has(id)) {
            const loading = this.load(id).then((entry) => {
                if (entry === null && this.cache.get(id) === loading) this.cache.delete(id);
                return entry;
            });
            this.cache.set(id, loading);
        }
        return this.cache.get(id);
    }

    async load(id) {
        const record = await this.store.group(id);
        return record ? { ...record, id, chain: await GroupChain.fromJSON(record.chain) } : null;
    }

    /** Every group's entry, those this account is a member of first, then by name. */
    async entries() {
        const records = await this.store.groups();
        const entries = await Promise.all(records.map((record) => this.entry(record.id)));
        return entries.sort((a, b) => Number(b.chain.isMember) - Number(a.chain.isMember)
            || a.chain.current.name.localeCompare(b.chain.current.name));
    }

    /**
     * Keeps `entry` (the one object this book hands out for its group, changed in place by sending and receiving)
     * and writes it. Writes run one after the other, each sealing the entry as it is when the write starts, so a
     * slower earlier write never puts back an older sender sequence or chain.
     */
    save(entry) {
        entry.nextSequence ??= 1;
        entry.seen = (entry.seen ?? []).slice(-seenKept);
        this.cache.set(entry.id, Promise.resolve(entry));
        const write = this.writing.then(() => this.store.saveGroup(entry.id, {
            chain: entry.chain.toJSON(), nextSequence: entry.nextSequence, seen: entry.seen, timer: entry.timer ?? null,
        }));
        this.writing = write.catch(() => {});
        return write;
    }

    /** The group's disappearing timer in seconds (0 = off): `timer` `{disappearAfter, setAt, setBy}` of its entry. */
    static timerOf(entry) {
        return entry?.timer?.disappearAfter ?? 0;
    }

    /** Takes this account's next sender sequence in the group, kept before anything is sealed with it. */
    async takeSequence(id) {
        const entry = await this.entry(id);
        const sequence = entry.nextSequence ?? 1;
        entry.nextSequence = sequence + 1;
        await this.save(entry);
        return sequence;
    }

    /** Whether the group message (sender, id) was taken in already. */
    static hasSeen(entry, key) {
        return entry?.seen?.includes(seenKey(key)) ?? false;
    }

    static markSeen(entry, key) {
        entry.seen ??= [];
        entry.seen.push(seenKey(key));
    }

    /**
     * The line a membership change is shown as ("alice added dave", "you were removed from G by alice").
     * @param {string} action
     * @param {import('../crypto/group-state.js').GroupState} state the new state
     * @param {import('../crypto/group-state.js').GroupState | null} previous the state it replaced, null when this
     *   account joins by this update
     * @param {string} sender token
     * @param {string} owner this account's token
     * @param {(token: string) => string} name
     */
    static describe(action, state, previous, sender, owner, name) {
        // A member who joins by this update never held the previous state: it is the members who joined earlier.
        const before = new Set((previous?.members ?? state.members.filter((member) => member.joinedAt < state.version))
            .map((member) => String(member.token)));
        const after = new Set(state.members.map((member) => String(member.token)));
        const names = (tokens) => [...tokens].sort().map(name).join(', ');
        const without = (set, other) => [...set].filter((token) => !other.has(token));
        switch (action) {
        case 'create':
            return `${name(sender)} created ${state.name} with ${names(without(after, new Set([sender])))}`;
        case 'add':
            return `${name(sender)} added ${names(without(after, before))}`;
        case 'remove': {
            const removed = without(before, after);
            if (removed.includes(owner)) return `you were removed from ${state.name} by ${name(sender)}`;
            return `${name(sender)} removed ${names(removed)}`;
        }
        case 'leave':
            return sender === owner ? `you left ${state.name}` : `${name(sender)} left`;
        case 'promote': {
            const promoted = state.members.filter((member) => member.isAdmin
                && previous?.member(member.token)?.isAdmin === false);
            return `${name(sender)} made ${names(promoted.map((member) => String(member.token)))} admin`;
        }
        case 'rename':
            if (previous?.name === state.name) {
                return `${name(sender)} set the avatar of ${state.name} to ${state.avatar ?? 'none'}`;
            }
            return `${name(sender)} renamed ${previous?.name ?? 'the group'} to ${state.name}`;
        case 'rekey': {
            const recorded = state.members.filter((member) => {
                const before = previous?.member(member.token);
                return before ? !before.fingerprint.equals(member.fingerprint) : false;
            }).map((member) => String(member.token));
            if (recorded.length === 1 && recorded[0] === sender) return `${name(sender)} recorded a new key`;
            return `${name(sender)} recorded the new key of ${names(recorded)}`;
        }
        default:
            return `${name(sender)} changed the group`;
        }
    }

    /** A timer as lines say it: `off`, or `to 5 minutes` (the largest whole unit), as WotsClient's. */
    static describeTimer(seconds) {
        if (!seconds) return 'off';
        const units = [[86_400, 'day'], [3_600, 'hour'], [60, 'minute'], [1, 'second']];
        const [size, unit] = units.find(([unitSeconds]) => seconds % unitSeconds === 0);
        const count = seconds / size;
        return `to ${count} ${unit}${count === 1 ? '' : 's'}`;
    }

    /** The line a warning is shown as ("missed 2 messages from alice"). */
    static describeWarning(warning, name) {
        switch (warning.kind) {
        case 'missedMessages':
            return `missed ${warning.count} message${warning.count === 1 ? '' : 's'} from ${name(warning.from)}`;
        case 'recipientsDiffer': {
            const parts = [];
            if (warning.extra.length > 0) parts.push(`also sent to ${warning.extra.map(name).join(', ')}`);
            if (warning.missing.length > 0) parts.push(`not sent to ${warning.missing.map(name).join(', ')}`);
            return `recipients differ from the members: ${parts.join('; ')}`;
        }
        case 'keyChanged': {
            const who = name(warning.member);
            if (who === 'you') return 'your key is not the one the group recorded: record it in group info';
            return `${who}'s key is not the one the group recorded: compare the safety number in your chat with `
                + `${who}; an admin records it in group info`;
        }
        default:
            return 'warning';
        }
    }
}

function seenKey({ sender, id }) {
    return `${sender}/${id}`.toLowerCase();
}
