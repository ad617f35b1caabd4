/**
 * What one member knows of one group, as WotsClient's `GroupChain`: every state held since joining, the current one,
 * and the last sender sequence accepted from each sender. Pure logic (no storage, no network): it decides, the caller
 * keeps, shows and reports. Rules in SECURITY.md, "Membership chain" and "Group messages: what a member checks and
 * reports". Hashes are WebCrypto's, so the methods that compute one are async.
 */

import { compareBytes, fromHex, toHex } from '../crypto/bytes.js';
import { GroupState } from '../crypto/group-state.js';
import { Token } from '../crypto/token.js';
import { GroupRefusal, GroupRefusalKind, GroupWarning } from './group-refusal.js';
import { checkTransition } from './group-transition.js';

export class GroupChain {
    /**
     * @param {{owner: Token, current: GroupState, currentHash: Uint8Array, held: Map<string, GroupState>,
     *   lastSequence?: Map<string, number>}} fields `held` by hash in hex, `lastSequence` by token
     */
    constructor({ owner, current, currentHash, held, lastSequence = new Map() }) {
        this.owner = owner;
        this.current = current;
        this.currentHash = currentHash;
        this.held = held;
        this.lastSequence = lastSequence;
    }

    /**
     * Starts a chain from the envelope whose update first names the owner: a `create`, or an `add` that adds it,
     * from a sender who is an admin of the new state. Taken on trust, like a first contact.
     * @param {{action: string, state: GroupState}} update
     * @param {import('../crypto/group-envelope-header.js').GroupEnvelopeHeader} header its verified header
     * @param {Token} owner
     * @returns {Promise<GroupChain>}
     * @throws {GroupRefusal}
     */
    static async join(update, header, owner) {
        await checkReference(update, header);
        const { state } = update;
        validate(state);
        const joined = state.member(owner);
        const joins = joined !== null && ((update.action === 'create' && state.version === 1)
            || (update.action === 'add' && joined.joinedAt === state.version));
        if (!joins) {
            throw new GroupRefusal(GroupRefusalKind.invalidChange,
                `a ${update.action} of group ${state.id} does not add ${owner}`);
        }
        if (!state.isAdmin(header.sender)) {
            throw new GroupRefusal(GroupRefusalKind.notAdmin,
                `${header.sender} is not an admin of group ${state.id} and cannot add members`);
        }
        const hash = await state.stateHash();
        const held = new Map([[toHex(hash), state]]);
        const chain = new GroupChain({ owner, current: state, currentHash: hash, held });
        chain.recordSequence(header);
        return chain;
    }

    /** Whether the owner is still a member of the current state (false once removed or after leaving). */
    get isMember() {
        return this.current.member(this.owner) !== null;
    }

    /** Whether the chain has held the state with this hash. */
    holds(hash) {
        return this.held.has(typeof hash === 'string' ? hash : toHex(hash));
    }

    /**
     * Applies a `group_update` carried by a verified group envelope, if it chains onto the current state. The first
     * valid update for a version wins; a second one built on the same state is a fork and refused.
     * @returns {Promise<{state: GroupState, previous: GroupState, warnings: object[]}>}
     * @throws {GroupRefusal} naming the rule broken; the chain is unchanged then
     */
    async receive(update, header) {
        await checkReference(update, header);
        this.checkSequence(header);
        const previous = this.current;
        const next = await this.apply(update, header.sender);
        const warnings = this.recordSequence(header);
        const expected = new Set([...previous.tokens, ...next.tokens].map(String));
        warnings.push(...recipientWarnings(header, expected, previous));
        return { state: next, previous, warnings };
    }

    /** Applies an update from `sender` (checked by `receive` against its envelope). */
    async apply(update, sender) {
        const next = update.state;
        if (!next.id.equals(this.current.id)) {
            throw new GroupRefusal(GroupRefusalKind.wrongGroup,
                `an update for group ${next.id} reached group ${this.current.id}`);
        }
        validate(next);
        const hash = await next.stateHash();
        if (this.holds(hash)) {
            throw new GroupRefusal(GroupRefusalKind.replayed,
                `group ${next.id} version ${next.version} was applied already`);
        }
        if (next.version <= this.current.version) {
            const sibling = next.version === this.current.version
                && compareBytes(next.previous, this.current.previous) === 0;
            throw new GroupRefusal(sibling ? GroupRefusalKind.fork : GroupRefusalKind.replayed, sibling
                ? `a concurrent change to group ${next.id} version ${next.version} by ${sender} was not applied`
                : `group ${next.id} version ${next.version} is older than the current ${this.current.version}`);
        }
        if (next.version !== this.current.version + 1) {
            throw new GroupRefusal(GroupRefusalKind.gap, `group ${next.id} jumped from version `
                + `${this.current.version} to ${next.version}: an update is missing`);
        }
        if (compareBytes(next.previous, this.currentHash) !== 0) {
            throw new GroupRefusal(GroupRefusalKind.fork, `group ${next.id} version ${next.version} is not built on `
                + `the current state ${this.current.version}`);
        }
        checkTransition(update.action, this.current, next, sender);
        this.current = next;
        this.currentHash = hash;
        this.held.set(toHex(hash), next);
        return next;
    }

    /**
     * Decides whether a group message (any content but `group_update`) is shown, and with which warnings; records
     * the sender's sequence when it is.
     * @param {import('../crypto/group-envelope-header.js').GroupEnvelopeHeader} header its verified header
     * @returns {object[]} warnings (`GroupWarning`)
     * @throws {GroupRefusal} another group, a state the owner never held, a sender who is not a member of the named
     *   state or of the current one, or a sequence number already used
     */
    admit(header) {
        if (!header.groupID.equals(this.current.id)) {
            throw new GroupRefusal(GroupRefusalKind.wrongGroup,
                `a message for group ${header.groupID} reached group ${this.current.id}`);
        }
        const named = this.held.get(toHex(header.membershipStateHash));
        if (!named || BigInt(named.version) !== header.membershipVersion) {
            throw new GroupRefusal(GroupRefusalKind.unknownState, `message ${header.messageID} names group `
                + `${header.groupID} version ${header.membershipVersion}, a state this member never held `
                + '(group history diverged or an update is missing)');
        }
        if (named.member(header.sender) === null || this.current.member(header.sender) === null) {
            throw new GroupRefusal(GroupRefusalKind.notMember,
                `${header.sender} is not a member of group ${header.groupID} (version ${this.current.version})`);
        }
        const expected = new Set(named.tokens.filter((token) => !token.equals(header.sender)).map(String));
        this.checkSequence(header);
        const warnings = this.recordSequence(header);
        warnings.push(...recipientWarnings(header, expected, named));
        return warnings;
    }

    /**
     * Whether an ephemeral group message (typing) may be shown: it names this group and a state the owner held, and its
     * sender is a member of that state and of the current one. Its sender sequence is neither checked nor recorded:
     * an ephemeral message takes none (it carries the sender's next one without using it).
     * @param {import('../crypto/group-envelope-header.js').GroupEnvelopeHeader} header its header
     */
    admitsEphemeral(header) {
        if (!header.groupID.equals(this.current.id)) return false;
        const named = this.held.get(toHex(header.membershipStateHash));
        if (!named || BigInt(named.version) !== header.membershipVersion) return false;
        return named.member(header.sender) !== null && this.current.member(header.sender) !== null;
    }

    checkSequence(header) {
        const last = this.lastSequence.get(String(header.sender));
        if (last !== undefined && header.senderSequence <= BigInt(last)) {
            throw new GroupRefusal(GroupRefusalKind.sequenceReused, `${header.sender} used sequence `
                + `${header.senderSequence} in group ${header.groupID} after ${last}`);
        }
    }

    /** Records the sender's sequence; a jump of k > 1 is the warning "missed k − 1 messages". */
    recordSequence(header) {
        this.checkSequence(header);
        const sender = String(header.sender);
        const last = this.lastSequence.get(sender);
        // Beyond 2^53 − 1 a sequence cannot be kept exactly; it is then held at that bound.
        const sequence = Number(header.senderSequence > BigInt(Number.MAX_SAFE_INTEGER)
            ? BigInt(Number.MAX_SAFE_INTEGER) : header.senderSequence);
        this.lastSequence.set(sender, sequence);
        if (last === undefined || sequence <= last + 1) return [];
        return [GroupWarning.missedMessages(sender, sequence - last - 1)];
    }

    /** The stored form: `{owner, current, states, lastSequence}` as in WotsClient's `groups.json`. */
    toJSON() {
        return {
            owner: String(this.owner),
            current: toHex(this.currentHash),
            states: [...this.held.values()].sort((a, b) => a.version - b.version).map((state) => state.toJSON()),
            lastSequence: Object.fromEntries(this.lastSequence),
        };
    }

    /** @returns {Promise<GroupChain>} @throws when the stored chain lacks its current state */
    static async fromJSON(json) {
        const held = new Map();
        for (const stateJSON of json.states) {
            const state = GroupState.fromJSON(stateJSON);
            held.set(toHex(await state.stateHash()), state);
        }
        const current = held.get(json.current);
        if (!current) {
            throw new Error(`group chain names current state ${String(json.current).slice(0, 64)}, which it lacks`);
        }
        return new GroupChain({
            owner: Token.parse(json.owner), current, currentHash: fromHex(json.current), held,
            lastSequence: new Map(Object.entries(json.lastSequence ?? {})),
        });
    }
}

/** The header of an update names its parent state (version and hash), or the new state itself for a `create`. */
async function checkReference(update, header) {
    const { state } = update;
    const isCreate = update.action === 'create';
    const version = isCreate ? state.version : state.version - 1;
    const hash = isCreate ? await state.stateHash() : state.previous;
    const names = header.groupID.equals(state.id) && header.membershipVersion === BigInt(version)
        && compareBytes(header.membershipStateHash, hash) === 0;
    if (!names) {
        throw new GroupRefusal(GroupRefusalKind.invalidChange, `update ${header.messageID} names group `
            + `${header.groupID} version ${header.membershipVersion}, not the state it is built on`);
    }
}

/** Warnings when the signed list is not `expected` (token strings), or a listed key is not the one `state` recorded. */
function recipientWarnings(header, expected, state) {
    const listed = new Set(header.recipients.map((entry) => String(entry.token)));
    const warnings = [];
    const extra = [...listed].filter((token) => !expected.has(token)).sort();
    const missing = [...expected].filter((token) => !listed.has(token)).sort();
    if (extra.length > 0 || missing.length > 0) warnings.push(GroupWarning.recipientsDiffer(extra, missing));
    for (const entry of header.recipients) {
        const member = state.member(entry.token);
        if (member && !member.fingerprint.equals(entry.fingerprint)) {
            warnings.push(GroupWarning.keyChanged(String(entry.token)));
        }
    }
    const sender = state.member(header.sender);
    if (sender && !sender.fingerprint.equals(header.senderFingerprint)) {
        warnings.push(GroupWarning.keyChanged(String(header.sender)));
    }
    return warnings;
}

function validate(state) {
    try {
        state.validate();
    } catch (error) {
        throw new GroupRefusal(GroupRefusalKind.malformed, error.message);
    }
}
