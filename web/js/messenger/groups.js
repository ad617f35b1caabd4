/**
 * Groups for the browser's account, as WotsClient's `Messenger+Groups`, `+GroupChanges` and `+GroupKeys`: create a
 * group and change its membership (signed `group_update`s the admin applies only when the relay hands them back), the
 * group's disappearing timer, and the names lines use. What is sent is group-sending.js's, what arrives
 * group-receiving.js's, receipts group-receipts.js's, keys group-keys.js's. The messenger emits `group` (detail: the
 * group id) when a group changed, `conversation` with the group id when its messages did, and `group-typing`
 * (`{group, member, state}`) when a member types.
 */

import { toHex } from '../crypto/bytes.js';
import { GroupID, GroupMember, GroupState } from '../crypto/group-state.js';
import { Fingerprint } from '../crypto/fingerprint.js';
import { Token } from '../crypto/token.js';
import { MessageContent } from '../content/message-content.js';
import { RelayError } from '../protocol/relay-error.js';
import { GroupBook } from './group-book.js';
import { GroupKeys } from './group-keys.js';
import { GroupReceipts } from './group-receipts.js';
import { GroupReceiving } from './group-receiving.js';
import { GroupSending } from './group-sending.js';
import { checkTransition, membersAfterLeaving } from './group-transition.js';
import { isLaterTimerChange } from './timer-order.js';

/** How long a membership change waits for the relay to hand it back before reading the group mailbox itself. */
const echoWait = 10_000;

export class Groups {
    /** @param {import('./messenger.js').Messenger} messenger */
    constructor(messenger) {
        this.messenger = messenger;
        this.book = new GroupBook(messenger.store);
        this.receiving = new GroupReceiving(this);
        this.sending = new GroupSending(this);
        this.receipts = new GroupReceipts(this);
        this.keys = new GroupKeys(this);
        this.names = new Map();
    }

    get owner() {
        return this.messenger.token;
    }

    /** Every group known here: `{id, chain, …}`, current memberships first. */
    list() {
        return this.book.entries();
    }

    entry(id) {
        return this.book.entry(id);
    }

    // Membership changes

    /**
     * Creates a group with this account as its admin and `tokens` as members (each pinned on first use; a changed
     * key is refused), with a preset avatar or none. Resolves once the relay handed the `create` back and the group
     * exists here.
     * @returns {Promise<string>} the new group's id (32 hex digits)
     */
    async create(name, tokens, { avatar = null } = {}) {
        const contacts = await this.sending.checkedContacts(tokens);
        const members = [
            new GroupMember({
                token: this.owner, fingerprint: this.messenger.identity.fingerprint, isAdmin: true, joinedAt: 1,
            }),
            ...contacts.map((contact) => new GroupMember({
                token: Token.parse(contact.token), fingerprint: Fingerprint.fromHex(contact.fingerprint), joinedAt: 1,
            })),
        ];
        const state = new GroupState({
            id: GroupID.random(), version: 1, previous: GroupState.noPreviousState, name, avatar, members,
        });
        refuseInput(() => state.validate());
        await this.publish('create', state, state);
        return state.id.hex;
    }

    async add(id, tokens) {
        const contacts = await this.sending.checkedContacts(tokens);
        return this.change(id, 'add', (current) => {
            const present = contacts.find((contact) => current.member(Token.parse(contact.token)));
            if (present) throw new RelayError('invalid_input', `${present.nickname} is a member already`);
            return [...current.members, ...contacts.map((contact) => new GroupMember({
                token: Token.parse(contact.token), fingerprint: Fingerprint.fromHex(contact.fingerprint),
                joinedAt: current.version + 1,
            }))];
        });
    }

    remove(id, tokens) {
        const removed = new Set(tokens.map(String));
        return this.change(id, 'remove', (current) => current.members.filter((m) => !removed.has(String(m.token))));
    }

    promote(id, tokens) {
        const promoted = new Set(tokens.map(String));
        return this.change(id, 'promote', (current) => current.members.map((member) =>
            (promoted.has(String(member.token)) ? member.withAdmin(true) : member)));
    }

    leave(id) {
        return this.change(id, 'leave', (current) => {
            if (current.members.length < 2) {
                throw new RelayError('invalid_input', 'you are the last member; there is no one to tell');
            }
            return membersAfterLeaving(current, this.owner);
        });
    }

    /** A new name, a new preset avatar (`null`: none), or both; `undefined` keeps what the group has. */
    rename(id, name, avatar) {
        return this.change(id, 'rename', (current) => current.members, { name, avatar });
    }

    /** Records members' keys in the group state (a `rekey`): group-keys.js. */
    rekey(id, tokens = []) {
        return this.keys.rekey(id, tokens);
    }

    /** Builds the next state, checks it as every member will (`checkTransition`), and publishes it. */
    async change(id, action, members, { name, avatar } = {}) {
        const entry = await this.book.entry(id);
        if (!entry?.chain.isMember) throw new RelayError('invalid_input', 'you are no longer a member of this group');
        const { current, currentHash } = entry.chain;
        const next = new GroupState({
            id: current.id, version: current.version + 1, previous: currentHash, name: name ?? current.name,
            avatar: avatar === undefined ? current.avatar : avatar, members: await members(current),
        });
        refuseInput(() => {
            next.validate();
            checkTransition(action, current, next, this.owner);
        });
        await this.publish(action, next, current);
    }

    /**
     * Sends the update to the union of the old and the new members, this account included, and waits until it comes
     * back from the relay and applies here (SECURITY.md, "Membership chain": an admin never applies its own update
     * when sending it, so every member sees the relay's one order).
     */
    async publish(action, next, named) {
        const recipients = new Map([...named.tokens, ...next.tokens, this.owner].map((t) => [String(t), t]));
        const content = MessageContent.groupUpdate(action, next.toJSON());
        const hash = toHex(await next.stateHash());
        const applied = this.waitFor(next.id.hex, hash);
        await this.post(content, named, [...recipients.values()]);
        if (!(await applied.done)) {
            applied.cancel();
            await this.sync();
            const entry = await this.book.entry(next.id.hex);
            if (!entry?.chain.holds(hash)) {
                throw new RelayError('invalid_input', `the relay took the ${action} but it did not apply here `
                    + '(a concurrent change came first?)');
            }
        }
    }

    /** Resolves `done` with true once the group holds the state `hash`, or false after `echoWait`. */
    waitFor(id, hash) {
        let listener;
        let timer;
        const done = new Promise((resolve) => {
            listener = async ({ detail }) => {
                if (detail !== id) return;
                if ((await this.book.entry(id))?.chain.holds(hash)) resolve(true);
            };
            this.messenger.addEventListener('group', listener);
            timer = setTimeout(() => resolve(false), this.messenger.stream.isReady ? echoWait : 0);
        }).finally(() => {
            clearTimeout(timer);
            this.messenger.removeEventListener('group', listener);
        });
        return { done, cancel: () => clearTimeout(timer) };
    }

    // Sending (group-sending.js)

    /** Sends `text` to every other member under the group's timer; kept in the group's conversation. */
    sendText(id, text) {
        return this.sending.sendText(id, text);
    }

    /** Uploads a file once for every other member and announces it (`{name, mediaType, bytes}`). */
    sendAttachment(id, file, onProgress) {
        return this.sending.sendAttachment(id, file, onProgress);
    }

    /** Sets the group's disappearing timer (seconds, 0 = off) for every member. */
    setTimer(id, seconds) {
        return this.sending.setTimer(id, seconds);
    }

    /** Tells the other members this side started or stopped typing (ephemeral; a lost one is harmless). */
    sendTyping(id, state) {
        return this.sending.sendTyping(id, state);
    }

    /** Seals `content` under the state `named` for `recipients` and posts it (group-sending.js). */
    post(content, named, recipients, options = {}) {
        return this.sending.post(content, named, recipients, options);
    }

    get pendingSequences() {
        return this.sending.pendingSequences;
    }

    // The group's disappearing timer: the latest change by its `sentAt`, then by its setter's token (timer-order.js).

    /**
     * Makes `seconds` the group's timer if this change is later than the one kept.
     * @returns {Promise<boolean>} whether it was applied
     */
    async applyTimer(entry, seconds, setAt, setBy) {
        const kept = { timerSetAt: entry.timer?.setAt, timerSetBy: entry.timer?.setBy };
        if (!isLaterTimerChange(kept, setAt, setBy)) return false;
        entry.timer = { disappearAfter: seconds, setAt, setBy };
        await this.book.save(entry);
        this.messenger.emit('group', entry.id);
        return true;
    }

    // Receiving

    /** Reads the group mailbox over HTTP (when the stream cannot be waited for) through the one receiving queue. */
    async sync() {
        let after = 0;
        for (;;) {
            const page = await this.messenger.relay.groupMailbox({ after, limit: 100 });
            const messages = page.messages ?? [];
            if (messages.length === 0) return;
            for (const message of messages) {
                after = Math.max(after, message.seq);
                await this.messenger.receiving.receive({ type: 'group_message', ...message });
            }
        }
    }

    /** Takes in one stored `group_message` frame (group-receiving.js). */
    receive(frame) {
        return this.receiving.receive(frame);
    }

    /** Takes in one ephemeral `group_message` frame (no `seq`): typing, or nothing (group-receiving.js). */
    receiveEphemeral(frame) {
        return this.receiving.receiveEphemeral(frame);
    }

    // Names

    /** How a member is called in lines: "you", the pinned nickname, the directory's, else the token. */
    async nameOf(token) {
        await this.learnNames([token]);
        return this.nameNow(token);
    }

    nameNow(token) {
        const text = String(token);
        if (text === String(this.owner)) return 'you';
        return this.names.get(text) ?? `token ${text}`;
    }

    async learnNames(tokens) {
        for (const token of tokens.map(String)) {
            if (token === String(this.owner) || this.names.has(token)) continue;
            const contact = await this.messenger.store.contact(token);
            if (contact) {
                this.names.set(token, contact.nickname);
                continue;
            }
            try {
                this.names.set(token, (await this.messenger.relay.entryByToken(token)).nickname);
            } catch {
                // Left as the token; a later line tries again.
            }
        }
    }
}

/** Runs `check`, turning a rule it breaks into the `invalid_input` refusal the user sees. */
function refuseInput(check) {
    try {
        check();
    } catch (error) {
        throw new RelayError('invalid_input', error.message);
    }
}
