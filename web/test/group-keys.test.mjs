import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { Fingerprint } from '../js/crypto/fingerprint.js';
import { GroupMember, GroupState } from '../js/crypto/group-state.js';
import { IdentityKeys } from '../js/crypto/keys.js';
import { MessageContent } from '../js/content/message-content.js';
import { FakeMessenger, MemoryRelay, publishedKeys, vectorParties } from '../testing/group-world.mjs';
import { readVector } from '../testing/tools.mjs';

// Key changes in groups (SECURITY.md, "Key changes in groups"): no trust on first use inside a group, members marked
// when their published key is not the recorded one, and `rekey` updates recording a key, end to end in memory
// (testing/group-world.mjs). carol "rotates" to keys made here.

const vector = readVector('group-envelope-v1.json');
let parties;
let rotated;

before(async () => {
    parties = await vectorParties(vector);
    const identity = await IdentityKeys.generate();
    rotated = { identity, json: publishedKeys(identity) };
});

async function world() {
    const relay = new MemoryRelay();
    const [alice, bob, carol] = parties.map((party) => new FakeMessenger(party, relay));
    const id = await alice.groups.create('Crew', [bob.token, carol.token]);
    return { relay, alice, bob, carol, id };
}

const keyOf = async (member, id, of) => (await member.groups.keys.memberKeys(id))
    .find((key) => key.token === String(of.token));
const recordedFor = async (member, id, of) => (await member.groups.entry(id)).chain.current.member(of.token)
    .fingerprint.hex;

describe('key changes in groups', () => {
    test('no trust on first use inside a group: a key other than the recorded one is refused and held until accepted',
        async () => {
            const { relay, alice, bob, carol, id } = await world();
            carol.rotate(rotated.identity, rotated.json); // before bob ever pinned her
            const posted = relay.posted;
            await assert.rejects(bob.groups.sendText(id, 'to everyone'), (error) => error.code === 'key_changed'
                && /carol's key is not the one the group recorded/.test(error.message));
            assert.equal(relay.posted, posted, 'nothing sealed for a key nobody here accepted');
            const unpinned = await bob.store.contact(String(carol.token));
            assert.equal(unpinned.recordedOnly, true, 'not pinned: the recorded key waits beside the published one');
            assert.equal(unpinned.publicKeys, null);
            assert.equal(unpinned.changedKeys.fingerprint, rotated.json.fingerprint);

            await carol.groups.sendText(id, 'new key, same carol');
            for (const member of [alice, bob]) {
                assert.ok(!(await member.lines(id)).some((line) => line.includes('new key, same carol')));
                assert.equal(member.acknowledged.filter((key) => key.sender === String(carol.token)).length, 0,
                    'held in the mailbox, unacknowledged');
            }
            assert.ok((await bob.lines(id)).some((line) => /carol, whose key is not the one the group recorded, waits/
                .test(line)));
            assert.ok((await alice.lines(id)).some((line) => /carol, whose key changed, waits/.test(line)));

            await bob.acceptChangedKeys(carol.token);
            const shown = (await bob.lines(id)).find((line) => line.startsWith('carol: new key, same carol'));
            assert.match(shown, /carol's key is not the one the group recorded: compare the safety number/);
            assert.deepEqual(await keyOf(bob, id, carol), { token: String(carol.token), self: false, recorded: false,
                pinned: 'pinned', canRecord: false }, 'bob is no admin: he cannot record it');
            await assert.rejects(bob.groups.rekey(id, [carol.token]), { code: 'invalid_input' });

            assert.equal((await keyOf(alice, id, carol)).pinned, 'changed');
            await assert.rejects(alice.groups.rekey(id, [carol.token]), { code: 'key_changed' },
                'an admin records only a key it accepted');
            await alice.acceptChangedKeys(carol.token);
            assert.equal((await keyOf(alice, id, carol)).canRecord, true);
            await alice.groups.rekey(id, [carol.token]);
            for (const member of [alice, bob, carol]) {
                assert.equal(await recordedFor(member, id, carol), rotated.json.fingerprint, member.account.nickname);
            }
            assert.ok((await bob.lines(id)).includes('[membership] alice recorded the new key of carol'));
            assert.ok((await alice.lines(id)).includes('[membership] you recorded the new key of carol'));
            assert.equal((await keyOf(bob, id, carol)).recorded, true);
            await carol.groups.sendText(id, 'recorded now');
            assert.ok((await bob.lines(id)).includes('carol: recorded now'), 'no warning once recorded');
        });

    test('a member records its own new key, read by each member once it trusts that key', async () => {
        const { alice, bob, carol, id } = await world();
        await carol.groups.sendText(id, 'hello'); // bob pins carol's first key
        carol.rotate(rotated.identity, rotated.json);
        assert.deepEqual(await keyOf(carol, id, carol), { token: String(carol.token), self: true, recorded: false,
            pinned: 'self', canRecord: true });
        assert.match((await carol.groups.keys.warnings(id))[0], /^your key is not the one Crew recorded/);
        await carol.groups.rekey(id);
        assert.equal(await recordedFor(carol, id, carol), rotated.json.fingerprint);
        assert.notEqual(await recordedFor(bob, id, carol), rotated.json.fingerprint, 'held until bob trusts it');
        await bob.acceptChangedKeys(carol.token);
        assert.equal(await recordedFor(bob, id, carol), rotated.json.fingerprint);
        assert.ok((await bob.lines(id)).includes('[membership] carol recorded a new key'));
        await alice.acceptChangedKeys(carol.token);
        assert.equal(await recordedFor(alice, id, carol), rotated.json.fingerprint);
    });

    test('a rekey by a non-admin for someone else is refused, here and by every member', async () => {
        const { alice, bob, carol, id } = await world();
        alice.rotate(rotated.identity, rotated.json);
        await bob.contacts.recheck(await bob.store.contact(String(alice.token)));
        await bob.acceptChangedKeys(alice.token); // bob accepted alice's new key, but he is no admin
        await assert.rejects(bob.groups.rekey(id, [alice.token]), (error) => error.code === 'invalid_input'
            && /may record only its own key/.test(error.message));
        const { chain } = await bob.groups.entry(id);
        const swapped = new Fingerprint(crypto.getRandomValues(new Uint8Array(32)));
        const forged = new GroupState({
            ...chain.current, version: 2, previous: chain.currentHash,
            members: chain.current.members.map((m) => (m.token.equals(alice.token)
                ? new GroupMember({ ...m, fingerprint: swapped }) : m)),
        });
        await bob.groups.post(MessageContent.groupUpdate('rekey', forged.toJSON()), chain.current, chain.current.tokens);
        for (const member of [alice, carol]) {
            assert.equal((await member.groups.entry(id)).chain.current.version, 1, member.account.nickname);
            const refused = (await member.lines(id)).find((line) => line.startsWith('[refused]'));
            assert.match(refused, /refused rekey from bob: .* may record only its own key/);
        }
        assert.equal(await recordedFor(carol, id, alice), parties[0].json.fingerprint);
    });
});
