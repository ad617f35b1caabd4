import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compareBytes } from '../js/crypto/bytes.js';
import { Fingerprint } from '../js/crypto/fingerprint.js';
import { GroupEnvelopeHeader, GroupRecipient } from '../js/crypto/group-envelope-header.js';
import { GroupID, GroupMember, GroupState } from '../js/crypto/group-state.js';
import { Token } from '../js/crypto/token.js';
import { GroupBook } from '../js/messenger/group-book.js';
import { GroupChain } from '../js/messenger/group-chain.js';
import { membersAfterLeaving } from '../js/messenger/group-transition.js';

// The membership chain's rules (SECURITY.md, "Membership chain" and "Group messages: what a member checks and
// reports") on verified headers; the envelopes' crypto is group-envelope.test.mjs's.

const people = Object.fromEntries(['alice', 'bob', 'carol', 'dave'].map((name) => [name, {
    name, token: Token.random(), fingerprint: new Fingerprint(crypto.getRandomValues(new Uint8Array(32))),
}]));
const { alice, bob, carol, dave } = people;
const nameOf = (token) => Object.values(people).find((p) => String(p.token) === String(token))?.name ?? 'someone';
const member = (person, { admin = false, joinedAt = 1 } = {}) =>
    new GroupMember({ token: person.token, fingerprint: person.fingerprint, isAdmin: admin, joinedAt });

function created(members = [member(alice, { admin: true }), member(bob), member(carol)], name = 'Friends') {
    return new GroupState({ id: GroupID.random(), version: 1, previous: GroupState.noPreviousState, name, members });
}

async function next(state, changes) {
    return new GroupState({
        id: state.id, version: state.version + 1, previous: await state.stateHash(), name: state.name,
        avatar: state.avatar, members: state.members, ...changes,
    });
}

let sequences = new Map();

/** A verified header from `sender` naming `named`, to `recipients` (default: the named members but the sender). */
async function header(sender, named, { recipients, sequence } = {}) {
    const to = recipients ?? named.members.filter((m) => !m.token.equals(sender.token)).map((m) => nameOf(m.token));
    const taken = sequence ?? (sequences.get(sender.name) ?? 0) + 1;
    sequences.set(sender.name, taken);
    const entries = to.map((name) => people[name])
        .sort((a, b) => compareBytes(a.token.bytes, b.token.bytes))
        .map((p) => new GroupRecipient({ token: p.token, fingerprint: p.fingerprint, slotHash: new Uint8Array(32) }));
    return new GroupEnvelopeHeader({
        messageID: crypto.randomUUID(), sender: sender.token, senderFingerprint: sender.fingerprint, groupID: named.id,
        membershipVersion: named.version, membershipStateHash: await named.stateHash(), senderSequence: taken,
        sentAtMilliseconds: Date.now(), keyCommitment: new Uint8Array(32), recipients: entries,
    });
}

/** An update's header: it names the state it is built on, and goes to old and new members, the sender included. */
async function updateHeader(sender, from, to) {
    const names = new Set([...from.members, ...to.members].map((m) => nameOf(m.token)));
    return header(sender, from, { recipients: [...names] });
}

async function chainOf(owner, state) {
    sequences = new Map();
    const names = state.members.map((m) => nameOf(m.token));
    return GroupChain.join({ action: 'create', state }, await header(alice, state, { recipients: names }), owner.token);
}

const refusal = (kind) => (error) => error.name === 'GroupRefusal' && error.kind === kind;

describe('joining', () => {
    test('a create that lists this member, from an admin of it, starts the chain', async () => {
        const state = created();
        const chain = await chainOf(bob, state);
        assert.ok(chain.isMember);
        assert.ok(chain.holds(await state.stateHash()));
    });

    test('an update that does not add this member, or comes from a non-admin, is refused', async () => {
        const state = created();
        const all = ['alice', 'bob', 'carol'];
        await assert.rejects(GroupChain.join({ action: 'create', state }, await header(alice, state, { recipients: all }),
            dave.token), refusal('invalidChange'));
        await assert.rejects(GroupChain.join({ action: 'create', state }, await header(bob, state, { recipients: all }),
            carol.token), refusal('notAdmin'));
        const wrongHeader = await header(alice, await next(state, {}), { recipients: all });
        await assert.rejects(GroupChain.join({ action: 'create', state }, wrongHeader, bob.token),
            refusal('invalidChange'), 'the header must name the created state itself');
    });
});

describe('membership changes', () => {
    test('an admin adds, removes, promotes and renames; each line says who did what', async () => {
        const state = created();
        const chain = await chainOf(bob, state);
        const added = await next(state, { members: [...state.members, member(dave, { joinedAt: 2 })] });
        const result = await chain.receive({ action: 'add', state: added }, await updateHeader(alice, state, added));
        assert.deepEqual(result.warnings, []);
        assert.equal(GroupBook.describe('add', added, result.previous, String(alice.token), String(bob.token), nameOf),
            'alice added dave');
        const promote = (m) => (m.token.equals(carol.token) ? m.withAdmin(true) : m);
        const promoted = await next(added, { members: added.members.map(promote) });
        await chain.receive({ action: 'promote', state: promoted }, await updateHeader(alice, added, promoted));
        const renamed = await next(promoted, { name: 'Best friends' });
        await chain.receive({ action: 'rename', state: renamed }, await updateHeader(carol, promoted, renamed));
        const removed = await next(renamed, { members: renamed.members.filter((m) => !m.token.equals(bob.token)) });
        const last = await chain.receive({ action: 'remove', state: removed }, await updateHeader(carol, renamed, removed));
        assert.equal(chain.isMember, false);
        assert.equal(GroupBook.describe('remove', removed, last.previous, String(carol.token), String(bob.token), nameOf),
            'you were removed from Best friends by carol');
        assert.equal(GroupBook.describe('remove', removed, last.previous, String(carol.token), String(dave.token), nameOf),
            'carol removed bob');
    });

    test('a non-admin’s update is refused (notAdmin), and the chain is unchanged', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const added = await next(state, { members: [...state.members, member(dave, { joinedAt: 2 })] });
        await assert.rejects(chain.receive({ action: 'add', state: added }, await updateHeader(bob, state, added)),
            refusal('notAdmin'));
        assert.equal(chain.current.version, 1);
    });

    test('a change that is not exactly its action is refused (invalidChange)', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const sneaky = await next(state, { name: 'Other', members: [...state.members, member(dave, { joinedAt: 2 })] });
        await assert.rejects(chain.receive({ action: 'add', state: sneaky }, await updateHeader(alice, state, sneaky)),
            refusal('invalidChange'));
        const adminAdd = await next(state, { members: [...state.members, member(dave, { admin: true, joinedAt: 2 })] });
        await assert.rejects(chain.receive({ action: 'add', state: adminAdd }, await updateHeader(alice, state, adminAdd)),
            refusal('invalidChange'));
        const renameAndRemove = await next(state, { name: 'x', members: state.members.filter((m) => !m.token.equals(bob.token)) });
        await assert.rejects(chain.receive({ action: 'rename', state: renameAndRemove },
            await updateHeader(alice, state, renameAndRemove)), refusal('invalidChange'));
    });

    test('replays, forks and version gaps are refused', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const withDave = await next(state, { members: [...state.members, member(dave, { joinedAt: 2 })] });
        const renamed = await next(state, { name: 'Concurrent' });
        await chain.receive({ action: 'add', state: withDave }, await updateHeader(alice, state, withDave));
        await assert.rejects(chain.receive({ action: 'add', state: withDave }, await updateHeader(alice, state, withDave)),
            refusal('replayed'));
        await assert.rejects(chain.receive({ action: 'rename', state: renamed }, await updateHeader(alice, state, renamed)),
            refusal('fork'), 'the first update for a version wins; a concurrent one is a fork');
        const missed = await next(withDave, { name: 'v3' });
        const skipped = await next(missed, { name: 'v4' });
        const skippedHeader = await updateHeader(alice, missed, skipped);
        await assert.rejects(chain.receive({ action: 'rename', state: skipped }, skippedHeader),
            refusal('gap'), 'version 4 after 2: the update to 3 is missing');
        assert.equal(chain.current.version, 2);
    });

    test('leaving hands the admin role to the longest-standing member, and only to it', async () => {
        const state = created();
        const chain = await chainOf(bob, state);
        const added = await next(state, { members: [...state.members, member(dave, { joinedAt: 2 })] });
        await chain.receive({ action: 'add', state: added }, await updateHeader(alice, state, added));
        const left = await next(added, { members: membersAfterLeaving(added, alice.token) });
        const heirs = left.members.filter((m) => m.isAdmin).map((m) => nameOf(m.token));
        assert.equal(heirs.length, 1);
        assert.ok(['bob', 'carol'].includes(heirs[0]), 'a member who joined at version 1, the smaller token');
        const wrongHeir = await next(added, {
            members: added.members.filter((m) => !m.token.equals(alice.token))
                .map((m) => (m.token.equals(dave.token) ? m.withAdmin(true) : m)),
        });
        await assert.rejects(chain.receive({ action: 'leave', state: wrongHeir }, await updateHeader(alice, added, wrongHeir)),
            refusal('invalidChange'));
        const result = await chain.receive({ action: 'leave', state: left }, await updateHeader(alice, added, left));
        assert.equal(GroupBook.describe('leave', left, result.previous, String(alice.token), String(bob.token), nameOf),
            'alice left');
    });
});

describe('recording keys (rekey)', () => {
    const newKey = () => new Fingerprint(crypto.getRandomValues(new Uint8Array(32)));
    /** The members with `person`'s recorded key replaced (and anything else `changes` says). */
    const withKey = (state, person, fingerprint, changes = {}) => state.members.map((m) => (m.token.equals(person.token)
        ? new GroupMember({ ...m, fingerprint, ...changes }) : m));

    test('an admin records any member’s new key, a member its own; the line says whose', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const bobsKey = await next(state, { members: withKey(state, bob, newKey()) });
        const first = await chain.receive({ action: 'rekey', state: bobsKey }, await updateHeader(alice, state, bobsKey));
        assert.deepEqual(first.warnings, []);
        assert.equal(GroupBook.describe('rekey', bobsKey, first.previous, String(alice.token), String(carol.token), nameOf),
            'alice recorded the new key of bob');
        const own = await next(bobsKey, { members: withKey(bobsKey, bob, newKey()) });
        const second = await chain.receive({ action: 'rekey', state: own }, await updateHeader(bob, bobsKey, own));
        assert.equal(GroupBook.describe('rekey', own, second.previous, String(bob.token), String(carol.token), nameOf),
            'bob recorded a new key');
        assert.ok(chain.current.member(bob.token).fingerprint.equals(own.member(bob.token).fingerprint));
    });

    test('a non-admin’s rekey of someone else, one that changes more than keys, or none, is refused', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const alicesKey = await next(state, { members: withKey(state, alice, newKey()) });
        await assert.rejects(chain.receive({ action: 'rekey', state: alicesKey }, await updateHeader(bob, state, alicesKey)),
            refusal('notAdmin'), 'bob may record only his own key');
        const bobsNewKey = { members: withKey(state, bob, newKey()) };
        const twoKeys = await next(state, { members: withKey(bobsNewKey, carol, newKey()) });
        await assert.rejects(chain.receive({ action: 'rekey', state: twoKeys }, await updateHeader(bob, state, twoKeys)),
            refusal('notAdmin'), 'his own and carol’s');
        const renamed = await next(state, { name: 'Other', members: withKey(state, bob, newKey()) });
        await assert.rejects(chain.receive({ action: 'rekey', state: renamed }, await updateHeader(alice, state, renamed)),
            refusal('invalidChange'));
        const promoted = await next(state, { members: withKey(state, bob, newKey(), { isAdmin: true }) });
        await assert.rejects(chain.receive({ action: 'rekey', state: promoted }, await updateHeader(alice, state, promoted)),
            refusal('invalidChange'));
        const same = await next(state, {});
        await assert.rejects(chain.receive({ action: 'rekey', state: same }, await updateHeader(alice, state, same)),
            refusal('invalidChange'), 'a rekey records at least one new key');
        const outsider = await next(state, { members: withKey(state, bob, newKey()) });
        await assert.rejects(chain.receive({ action: 'rekey', state: outsider }, await updateHeader(dave, state, outsider)),
            refusal('notMember'));
        assert.equal(chain.current.version, 1, 'nothing applied');
    });
});

describe('group messages', () => {
    test('an ephemeral message (typing) is admitted without touching the sender sequence', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        chain.admit(await header(bob, state, { sequence: 1 }));
        assert.equal(chain.admitsEphemeral(await header(bob, state, { sequence: 2 })), true);
        assert.equal(chain.lastSequence.get(String(bob.token)), 1);
        assert.deepEqual(chain.admit(await header(bob, state, { sequence: 2 })), [], 'the next stored one uses it');
        assert.equal(chain.admitsEphemeral(await header(dave, state)), false, 'not a member');
        assert.equal(chain.admitsEphemeral(await header(bob, await next(state, { name: 'elsewhere' }))), false,
            'a state never held');
        const removed = await next(state, { members: state.members.filter((m) => !m.token.equals(bob.token)) });
        await chain.receive({ action: 'remove', state: removed }, await updateHeader(alice, state, removed));
        assert.equal(chain.admitsEphemeral(await header(bob, state)), false, 'removed since');
    });

    test('a removed member’s messages are refused from its removal on', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const bobsOld = await header(bob, state);
        const removed = await next(state, { members: state.members.filter((m) => !m.token.equals(bob.token)) });
        await chain.receive({ action: 'remove', state: removed }, await updateHeader(alice, state, removed));
        assert.throws(() => chain.admit(bobsOld), refusal('notMember'), 'even one naming the state he was in');
        const bobsNew = await header(bob, removed);
        assert.throws(() => chain.admit(bobsNew), refusal('notMember'));
    });

    test('sequence gaps are reported as missed messages; a reused sequence is refused', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        assert.deepEqual(chain.admit(await header(bob, state, { sequence: 1 })), []);
        const warnings = chain.admit(await header(bob, state, { sequence: 4 }));
        assert.deepEqual(warnings, [{ kind: 'missedMessages', from: String(bob.token), count: 2 }]);
        assert.equal(GroupBook.describeWarning(warnings[0], nameOf), 'missed 2 messages from bob');
        const replayed = await header(bob, state, { sequence: 4 });
        assert.throws(() => chain.admit(replayed), refusal('sequenceReused'), 'a new id with a used sequence');
        const older = await header(bob, state, { sequence: 3 });
        assert.throws(() => chain.admit(older), refusal('sequenceReused'));
        assert.deepEqual(chain.admit(await header(bob, state, { sequence: 5 })), []);
    });

    test('a message naming a state this member never held is refused (unknownState)', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const unknown = await next(state, { name: 'never seen' });
        const naming = await header(bob, unknown);
        assert.throws(() => chain.admit(naming), refusal('unknownState'));
    });

    test('a recipient list that is not the membership is shown with a warning naming who differs', async () => {
        const state = created();
        const chain = await chainOf(carol, state);
        const warnings = chain.admit(await header(bob, state, { recipients: ['carol', 'dave'] }));
        assert.deepEqual(warnings, [{ kind: 'recipientsDiffer', extra: [String(dave.token)], missing: [String(alice.token)] }]);
        assert.equal(GroupBook.describeWarning(warnings[0], nameOf),
            'recipients differ from the members: also sent to dave; not sent to alice');
    });
});

describe('storage', () => {
    test('a chain survives its JSON form (what the group book seals)', async () => {
        const state = created();
        const chain = await chainOf(bob, state);
        const added = await next(state, { members: [...state.members, member(dave, { joinedAt: 2 })] });
        await chain.receive({ action: 'add', state: added }, await updateHeader(alice, state, added));
        chain.admit(await header(carol, added));
        const again = await GroupChain.fromJSON(JSON.parse(JSON.stringify(chain)));
        assert.equal(again.current.version, 2);
        assert.ok(again.holds(await state.stateHash()) && again.holds(await added.stateHash()));
        assert.deepEqual([...again.lastSequence], [...chain.lastSequence]);
        assert.ok(again.owner.equals(bob.token));
    });
});
