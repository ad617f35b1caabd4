/**
 * Groups for the browser's account, as WotsClient's `Messenger+Groups`, `+GroupSending` and `+GroupChanges`: create
 * a group and change its membership (signed `group_update`s the admin applies only when the relay hands them back),
 * send text to the members (every member's published key checked against the pinned one first), and the names lines
 * use; group-receiving.js takes in each `group_message` slot. The messenger emits `group` (detail: the group id) when
 * a group changed, and `conversation` with the group id when its messages did.
 */

import { toHex } from '../crypto/bytes.js';
import { sealGroupEnvelope } from '../crypto/group-envelope-sealing.js';
import { GroupID, GroupMember, GroupState } from '../crypto/group-state.js';
import { Fingerprint } from '../crypto/fingerprint.js';
import { PublicKeys } from '../crypto/keys.js';
import { Token } from '../crypto/token.js';
import { MessageContent } from '../content/message-content.js';
import { RelayError } from '../protocol/relay-error.js';
import { GroupBook } from './group-book.js';
import { GroupReceiving } from './group-receiving.js';
import { checkTransition, membersAfterLeaving } from './group-transition.js';

/** How long a membership change waits for the relay to hand it back before reading the group mailbox itself. */
const echoWait = 10_000;

export class Groups {
    /** @param {import('./messenger.js').Messenger} messenger */
    constructor(messenger) {
        this.messenger = messenger;
        this.book = new GroupBook(messenger.store);
        this.receiving = new GroupReceiving(this);
        this.posting = Promise.resolve();
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
     * key is refused). Resolves once the relay handed the `create` back and the group exists here.
     * @returns {Promise<string>} the new group's id (32 hex digits)
     */
    async create(name, tokens) {
        const contacts = await this.checkedContacts(tokens);
        const members = [
            new GroupMember({
                token: this.owner, fingerprint: this.messenger.identity.fingerprint, isAdmin: true, joinedAt: 1,
            }),
            ...contacts.map((contact) => new GroupMember({
                token: Token.parse(contact.token), fingerprint: Fingerprint.fromHex(contact.fingerprint), joinedAt: 1,
            })),
        ];
        const state = new GroupState({
            id: GroupID.random(), version: 1, previous: GroupState.noPreviousState, name, members,
        });
        refuseInput(() => state.validate());
        await this.publish('create', state, state);
        return state.id.hex;
    }

    async add(id, tokens) {
        const contacts = await this.checkedContacts(tokens);
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

    rename(id, name) {
        return this.change(id, 'rename', (current) => current.members, name);
    }

    /** Builds the next state, checks it as every member will (`checkTransition`), and publishes it. */
    async change(id, action, members, name) {
        const entry = await this.book.entry(id);
        if (!entry?.chain.isMember) throw new RelayError('invalid_input', 'you are no longer a member of this group');
        const { current, currentHash } = entry.chain;
        const next = new GroupState({
            id: current.id, version: current.version + 1, previous: currentHash, name: name ?? current.name,
            avatar: current.avatar, members: members(current),
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

    // Sending

    /** Sends `text` to every other member of the group as it stands now; kept in the group's conversation. */
    async sendText(id, text) {
        const entry = await this.book.entry(id);
        const chain = entry?.chain;
        if (!chain?.isMember) throw new RelayError('invalid_input', 'you are no longer a member of this group');
        const recipients = chain.current.tokens.filter((token) => !token.equals(this.owner));
        if (recipients.length === 0) throw new RelayError('invalid_input', 'you are the only member; nothing was sent');
        const content = MessageContent.text(text);
        const record = {
            conversation: id, id: crypto.randomUUID().toLowerCase(), sender: String(this.owner), direction: 'out',
            sentAt: Date.now(), expiresAt: 0, content, status: 'sending',
        };
        await this.messenger.store.saveMessage(record);
        this.messenger.emit('conversation', id);
        try {
            await this.post(content, chain.current, recipients, { messageID: record.id, sentAt: record.sentAt });
            record.status = 'sent';
        } catch (failure) {
            record.status = 'failed';
            throw failure;
        } finally {
            await this.messenger.store.saveMessage(record);
            this.messenger.emit('conversation', id);
        }
        return record;
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
        const senderSequence = await this.takeSequence(named.id.hex);
        const { envelope, slots } = await sealGroupEnvelope({
            plaintext: MessageContent.encode(content),
            messageID,
            sentAt,
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
        if (await this.book.entry(id)) return this.book.takeSequence(id);
        this.pendingSequences ??= new Map();
        const next = this.pendingSequences.get(id) ?? 1;
        this.pendingSequences.set(id, next + 1);
        return next;
    }

    /**
     * The pinned contacts of `tokens`, each checked against the directory first: a member whose published key is not
     * the pinned one is refused (`key_changed`) until the user accepts the new key in their chat.
     */
    async checkedContacts(tokens) {
        const { contacts } = this.messenger;
        const checked = await Promise.all(tokens.map(async (token) =>
            contacts.recheck(await contacts.contact(String(token)))));
        const changed = checked.find((contact) => contact.changedKeys);
        if (changed) {
            this.messenger.emit('contacts');
            throw new RelayError('key_changed', `${changed.nickname}'s key changed: compare the new safety number in `
                + 'your chat with them and accept it first; nothing was sent to the group');
        }
        return checked;
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

