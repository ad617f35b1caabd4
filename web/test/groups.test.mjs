import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { MessageContent } from '../js/content/message-content.js';
import { GroupState } from '../js/crypto/group-state.js';
import { FakeMessenger, MemoryRelay, vectorParties } from '../testing/group-world.mjs';
import { readVector } from '../testing/tools.mjs';

// Groups (messenger/groups.js) end to end in memory (testing/group-world.mjs): three accounts with the group vector's
// keys, a relay that hands each slot to its recipient's receiving queue, and a store without IndexedDB. What the
// browser test does with real relays and the CLI, here with every refusal the chain makes visible. Receipts, typing,
// timers, files and key changes are group-content.test.mjs's and group-keys.test.mjs's.

const vector = readVector('group-envelope-v1.json');
let parties;

before(async () => {
    parties = await vectorParties(vector);
});

function world() {
    const relay = new MemoryRelay();
    const [alice, bob, carol] = parties.map((party) => new FakeMessenger(party, relay));
    return { relay, alice, bob, carol };
}

describe('a group between three accounts', () => {
    test('create, text, a changed membership: every member shows the same lines', async () => {
        const { alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        for (const member of [alice, bob, carol]) assert.ok((await member.groups.entry(id))?.chain.isMember);
        assert.match((await alice.lines(id))[0], /^\[membership\] you created Crew with (bob, carol|carol, bob)$/);
        assert.match((await bob.lines(id))[0], /^\[membership\] alice created Crew with/);
        await alice.groups.sendText(id, 'hello crew');
        await bob.groups.sendText(id, 'hi from bob');
        assert.ok((await carol.lines(id)).includes('alice: hello crew'));
        assert.ok((await carol.lines(id)).includes('bob: hi from bob'));
        assert.ok((await alice.lines(id)).includes('you: hello crew'));
        await alice.groups.promote(id, [bob.token]);
        assert.ok((await carol.lines(id)).includes('[membership] alice made bob admin'));
        await bob.groups.remove(id, [carol.token]);
        assert.ok((await carol.lines(id)).includes('[membership] you were removed from Crew by bob'));
        assert.ok((await alice.lines(id)).includes('[membership] bob removed carol'));
        assert.equal((await carol.groups.entry(id)).chain.isMember, false);
        const before = carol.frames.length;
        await alice.groups.sendText(id, 'carol is gone');
        assert.equal(carol.frames.length, before, 'a removed member is not sent anything');
        assert.ok((await bob.lines(id)).includes('alice: carol is gone'));
        await assert.rejects(carol.groups.sendText(id, 'still here?'), { code: 'invalid_input' });
        const keys = alice.acknowledged.map((key) => `${key.sender}/${key.id}`);
        assert.equal(new Set(keys).size, keys.length, 'each slot acknowledged once, by (sender, id)');
    });

    test('a non-admin cannot change the group, and a forged update from one is refused and reported', async () => {
        const { alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        await assert.rejects(bob.groups.rename(id, 'Mine now'), { code: 'invalid_input' });
        // bob signs a rename anyway, built on the current state, and posts it.
        const { chain } = await bob.groups.entry(id);
        const forged = new GroupState({ ...chain.current, version: 2, previous: chain.currentHash, name: 'Mine now' });
        const everyone = chain.current.tokens;
        await bob.groups.post(MessageContent.groupUpdate('rename', forged.toJSON()), chain.current, everyone);
        for (const member of [alice, carol]) {
            assert.equal((await member.groups.entry(id)).chain.current.name, 'Crew');
            const refused = (await member.lines(id)).find((line) => line.startsWith('[refused]'));
            assert.match(refused, /refused rename from bob: .* is not an admin/);
        }
    });

    test('a replayed slot is dropped; a withheld one shows as "missed 1 message" at the next', async () => {
        const { relay, alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        await alice.groups.sendText(id, 'one');
        const frame = bob.frames.at(-1);
        await bob.receive(frame);
        assert.equal((await bob.lines(id)).filter((line) => line === 'alice: one').length, 1);
        relay.drop = (token) => token === String(bob.token);
        await alice.groups.sendText(id, 'two');
        relay.drop = () => false;
        await alice.groups.sendText(id, 'three');
        const lines = await bob.lines(id);
        assert.ok(lines.includes('alice: three (missed 1 message from alice)'), lines.join('\n'));
        assert.ok(!(await carol.lines(id)).some((line) => line.includes('missed')));
    });

    test('the last admin leaves: the longest-standing member becomes admin at every member', async () => {
        const { alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        await alice.groups.rename(id, 'Crew 2');
        assert.ok((await bob.lines(id)).includes('[membership] alice renamed Crew to Crew 2'));
        await alice.groups.leave(id);
        assert.ok((await alice.lines(id)).includes('[membership] you left Crew 2'));
        assert.ok((await carol.lines(id)).includes('[membership] alice left'));
        const states = await Promise.all([bob, carol].map(async (m) => (await m.groups.entry(id)).chain.current));
        const admins = states.map((state) => state.members.filter((m) => m.isAdmin).map((m) => String(m.token)));
        assert.deepEqual(admins[0], admins[1]);
        assert.equal(admins[0].length, 1, 'one heir (both joined at version 1: the smaller token)');
        assert.equal((await alice.groups.entry(id)).chain.isMember, false);
    });

    test('sending while slots are taken in never reuses a sender sequence', async () => {
        const { alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        await Promise.all([alice.groups.sendText(id, 'a1'), bob.groups.sendText(id, 'b1'), alice.groups.sendText(id, 'a2'),
            bob.groups.sendText(id, 'b2')]);
        await alice.groups.sendText(id, 'a3');
        const lines = await carol.lines(id);
        for (const text of ['alice: a1', 'alice: a2', 'alice: a3', 'bob: b1', 'bob: b2']) assert.ok(lines.includes(text), text);
        assert.ok(!lines.some((line) => line.startsWith('[refused]')), lines.join('\n'));
        assert.equal((await alice.groups.entry(id)).nextSequence, 5, 'create, a1, a2, a3: the next is 5');
    });

    test('a member whose published key changed is not wrapped for until the key is accepted', async () => {
        const { relay, alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        const posted = relay.posted;
        relay.publish(carol.token, { publicKeys: vector.recipients[0].publicKeys,
            fingerprint: vector.recipients[0].fingerprint });
        await assert.rejects(alice.groups.sendText(id, 'to a changed key?'), { code: 'key_changed' });
        assert.equal(relay.posted, posted, 'nothing was sealed or posted');
        assert.ok((await alice.store.contact(String(carol.token))).changedKeys, 'the change waits for the user');
    });

    test('a message naming a state nobody held is refused; one listing others than the members shows who', async () => {
        const { alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        const { chain } = await alice.groups.entry(id);
        const elsewhere = new GroupState({ ...chain.current, name: 'Another history' });
        await alice.groups.post(MessageContent.text('from another history'), elsewhere, [bob.token, carol.token]);
        const refused = (await bob.lines(id)).find((line) => line.startsWith('[refused]'));
        assert.match(refused, /refused text from alice: .*a state this member never held/);
        assert.ok(!(await bob.lines(id)).some((line) => line.includes('from another history')));
        await alice.groups.post(MessageContent.text('only for bob'), chain.current, [bob.token]);
        // The refused message's sequence was never recorded: bob counts it as missed.
        const shown = 'alice: only for bob (missed 1 message from alice; recipients differ from the members: '
            + 'not sent to carol)';
        assert.ok((await bob.lines(id)).includes(shown), (await bob.lines(id)).join('\n'));
    });

    test('an unknown content type in a group is kept (shown as unsupported); a receipt is taken in silently', async () => {
        const { alice, bob, carol } = world();
        const id = await alice.groups.create('Crew', [bob.token, carol.token]);
        const { chain } = await alice.groups.entry(id);
        await alice.groups.post({ type: 'poll', question: '?' }, chain.current, [bob.token, carol.token]);
        const kept = (await bob.store.messages(id)).find((m) => m.content.type === 'poll');
        assert.ok(kept && !MessageContent.isKnown(kept.content));
        await alice.groups.post(MessageContent.receipt('read', [{ sender: String(bob.token), id: kept.id }]), chain.current,
            [bob.token, carol.token]);
        assert.ok(!(await bob.store.messages(id)).some((m) => m.content.type === 'receipt'), 'a receipt shows nothing');
        await alice.groups.sendText(id, 'after the receipt');
        assert.ok((await bob.lines(id)).includes('alice: after the receipt'), 'and its sequence counted: no gap');
    });
});
