import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { IdentityKeys } from '../js/crypto/keys.js';
import { sealGroupEnvelope } from '../js/crypto/group-envelope-sealing.js';
import { toBase64 } from '../js/crypto/bytes.js';
import { Token } from '../js/crypto/token.js';
import { MessageContent } from '../js/content/message-content.js';
import { GroupReceipts } from '../js/messenger/group-receipts.js';
import { FakeMessenger, MemoryRelay, publishedKeys, vectorParties } from '../testing/group-world.mjs';
import { readVector } from '../testing/tools.mjs';

// What a group carries besides texts and membership (SECURITY.md "Receipts in groups", "Typing in groups",
// "Disappearing timers in groups", "Attachments in groups"), end to end in memory (testing/group-world.mjs), with the
// attacks each rule stops.

const vector = readVector('group-envelope-v1.json');
let parties;

before(async () => {
    parties = await vectorParties(vector);
    const identity = await IdentityKeys.generate();
    parties.push({ token: Token.random(), identity, nickname: 'dave', json: publishedKeys(identity) });
});

async function world() {
    const relay = new MemoryRelay();
    const [alice, bob, carol, dave] = parties.map((party) => new FakeMessenger(party, relay));
    const id = await alice.groups.create('Crew', [bob.token, carol.token]);
    return { relay, alice, bob, carol, dave, id };
}

/** A group envelope as `from` would seal it (or a forger, with `identity`), for `to`, as an ephemeral frame each. */
async function ephemeralFrames(from, id, content, to, { identity = from.identity, sender = from.token, sentAt } = {}) {
    const { chain } = await from.groups.entry(id);
    const { envelope, slots } = await sealGroupEnvelope({
        plaintext: MessageContent.encode(content), sender, identity, groupID: chain.current.id, sentAt,
        membershipVersion: chain.current.version, membershipStateHash: await chain.current.stateHash(),
        senderSequence: 99,
        recipients: to.map((member) => ({ token: member.token, publicKeys: member.identity.publicKeys })),
    });
    return new Map(slots.map((slot) => [String(slot.recipient), { type: 'group_message', ephemeral: true,
        receivedAt: new Date().toISOString(), body: toBase64(envelope.serialized), slot: toBase64(slot.wrappedKey) }]));
}

describe('typing in groups (ephemeral group frames, no seq)', () => {
    test('shows as typing at the members, is never acknowledged, and takes no sender sequence', async () => {
        const { alice, bob, carol, id } = await world();
        const acknowledged = bob.acknowledged.length;
        const sequence = (await bob.groups.entry(id)).chain.lastSequence.get(String(alice.token));
        assert.equal(await alice.groups.sendTyping(id, 'started'), true);
        for (const member of [bob, carol]) {
            assert.deepEqual(member.typing, [{ group: id, member: String(alice.token), state: 'started' }]);
        }
        assert.equal(bob.acknowledged.length, acknowledged, 'an ephemeral slot is never acknowledged');
        assert.equal((await bob.groups.entry(id)).chain.lastSequence.get(String(alice.token)), sequence,
            'its sender sequence is neither checked nor recorded');
        assert.equal((await bob.store.messages(id)).filter((m) => m.direction !== 'note').length, 0, 'nothing kept');
        await alice.groups.sendText(id, 'after typing');
        const lines = await bob.lines(id);
        assert.ok(lines.includes('alice: after typing'), 'the next stored message uses that same sequence: no gap');
        assert.ok(!lines.some((line) => line.startsWith('[refused]') || line.includes('missed')), lines.join('\n'));
        await alice.groups.sendTyping(id, 'stopped');
        assert.equal(bob.typing.at(-1).state, 'stopped');
    });

    test('an offline member gets nothing later; typing is not sent by a former member', async () => {
        const { alice, bob, carol, id } = await world();
        carol.online = false;
        await alice.groups.sendTyping(id, 'started');
        assert.equal(carol.typing.length, 0);
        await alice.groups.remove(id, [carol.token]);
        assert.equal(await carol.groups.sendTyping(id, 'started'), false, 'a removed member sends no typing');
        assert.equal(bob.typing.length, 1);
    });

    test('a text that came ephemerally is dropped; typing that came stored is not shown', async () => {
        const { alice, bob, carol, id } = await world();
        const frames = await ephemeralFrames(alice, id, MessageContent.text('sneaked in'), [bob, carol]);
        await bob.receive(frames.get(String(bob.token)));
        assert.ok(!(await bob.lines(id)).some((line) => line.includes('sneaked in')));
        assert.equal(bob.typing.length, 0);
        const { chain } = await alice.groups.entry(id);
        await alice.groups.post(MessageContent.typing('started'), chain.current, [bob.token, carol.token]);
        assert.equal(bob.typing.length, 0, 'typing counts only when it came ephemerally');
    });

    test('attacks: typing naming another sender, from a removed member, or replayed later is dropped', async () => {
        const { alice, bob, carol, id } = await world();
        await carol.groups.sendText(id, 'hi, carol here'); // bob pins carol
        // carol names alice as the sender: with her own key the sender fingerprint is not alice's …
        const asAlice = await ephemeralFrames(carol, id, MessageContent.typing('started'), [bob],
            { sender: alice.token });
        await bob.receive(asAlice.get(String(bob.token)));
        // … and with alice's fingerprint the signature (carol's) does not verify under alice's key.
        const forged = { fingerprint: alice.identity.fingerprint, sign: (bytes) => carol.identity.sign(bytes) };
        const signedByCarol = await ephemeralFrames(carol, id, MessageContent.typing('started'), [bob],
            { sender: alice.token, identity: forged });
        await bob.receive(signedByCarol.get(String(bob.token)));
        const stale = await ephemeralFrames(carol, id, MessageContent.typing('started'), [bob],
            { sentAt: Date.now() - 120_000 });
        await bob.receive(stale.get(String(bob.token)));
        assert.deepEqual(bob.typing, [], 'none of them shows');
        // A removed member still holds the state it was removed from, which bob held too.
        const beforeRemoval = await ephemeralFrames(carol, id, MessageContent.typing('started'), [bob]);
        await alice.groups.remove(id, [carol.token]);
        await bob.receive(beforeRemoval.get(String(bob.token)));
        assert.deepEqual(bob.typing, [], 'a removed member\'s typing is dropped');
        assert.equal(bob.acknowledged.filter((key) => key.sender === String(carol.token)).length, 1,
            'only carol\'s stored text was acknowledged');
    });
});

describe('receipts in groups (1:1 receipts to the sender alone)', () => {
    test('each member confirms to the sender alone; the sender counts ✓✓ 2/2, then reads', async () => {
        const { alice, bob, carol, id } = await world();
        const sent = await alice.groups.sendText(id, 'count me');
        let mine = await alice.store.message(id, String(alice.token), sent.id);
        assert.deepEqual(mine.members, { [String(bob.token)]: 'delivered', [String(carol.token)]: 'delivered' });
        assert.equal(mine.status, 'delivered', 'a receipt that came before the relay\'s answer is kept');
        assert.equal(GroupReceipts.mark(mine), '✓✓ 2/2');
        for (const member of [bob, carol]) {
            assert.deepEqual(member.receiptsSent.map((r) => [r.peer, r.status]), [[String(alice.token), 'delivered']]);
            assert.deepEqual(member.receiptsSent[0].messages, [{ sender: String(alice.token), id: sent.id }]);
        }
        carol.readReceipts = false;
        await bob.groups.receipts.markRead(id);
        await carol.groups.receipts.markRead(id);
        await bob.groups.receipts.markRead(id);
        mine = await alice.store.message(id, String(alice.token), sent.id);
        assert.equal(GroupReceipts.mark(mine), '✓✓ 2/2 · read 1/2');
        assert.equal(bob.receiptsSent.filter((r) => r.status === 'read').length, 1, 'one read receipt, once');
        assert.equal(carol.receiptsSent.filter((r) => r.status === 'read').length, 0, 'read receipts off');
        assert.equal(mine.status, 'delivered', 'the message is read only when every member read it');
        // A receipt never moves a member back.
        await alice.receiving.applyReceipt(String(bob.token), MessageContent.receipt('delivered', [{ sender: String(alice.token), id: sent.id }]));
        assert.equal((await alice.store.message(id, String(alice.token), sent.id)).members[String(bob.token)], 'read');
    });

    test('attacks: a receipt from a non-member, or a member the message did not go to, changes nothing', async () => {
        const { alice, bob, carol, dave, id } = await world();
        const sent = await alice.groups.sendText(id, 'before dave');
        const before = await alice.store.message(id, String(alice.token), sent.id);
        const read = MessageContent.receipt('read', [{ sender: String(alice.token), id: sent.id }]);
        await alice.receiving.applyReceipt(String(dave.token), read);
        assert.deepEqual(await alice.store.message(id, String(alice.token), sent.id), before, 'dave is no member');
        await alice.groups.add(id, [dave.token]);
        await alice.receiving.applyReceipt(String(dave.token), read);
        assert.deepEqual(await alice.store.message(id, String(alice.token), sent.id), before,
            'dave joined after it was sent: it never went to him');
        assert.equal(await dave.store.message(id, String(alice.token), sent.id), null);
        // A receipt naming someone else's message (bob's) changes nothing here either: only this account's count.
        const bobs = await bob.groups.sendText(id, 'from bob');
        const kept = await alice.store.message(id, String(bob.token), bobs.id);
        await alice.receiving.applyReceipt(String(carol.token), MessageContent.receipt('read', [{ sender: String(bob.token), id: bobs.id }]));
        assert.deepEqual(await alice.store.message(id, String(bob.token), bobs.id), kept);
    });
});

describe('disappearing timers in groups', () => {
    test('any member sets it; every member keeps it, and later texts carry it and disappear', async () => {
        const { alice, bob, carol, id } = await world();
        await bob.groups.setTimer(id, 300);
        for (const member of [alice, bob, carol]) {
            assert.equal((await member.groups.entry(id)).timer.disappearAfter, 300, member.account.nickname);
        }
        assert.ok((await carol.lines(id)).includes('[membership] bob set disappearing messages to 5 minutes'));
        assert.ok((await bob.lines(id)).includes('[membership] you set disappearing messages to 5 minutes'));
        const sent = await alice.groups.sendText(id, 'gone in five minutes');
        assert.equal(sent.expiresAt, sent.sentAt + 300_000);
        const kept = await carol.store.message(id, String(alice.token), sent.id);
        assert.equal(kept.expiresAt, sent.sentAt + 300_000, 'the header\'s expiresAt (checked against the content)');
        // The page's sweeper deletes it at its expiresAt, not before (LocalStore.deleteExpired).
        assert.equal((await carol.store.deleteExpired(sent.expiresAt - 1)).length, 0);
        assert.equal((await carol.store.deleteExpired(sent.expiresAt)).length, 1);
    });

    test('crossed changes converge on the latest by sentAt; a removed member\'s change is refused', async () => {
        const { alice, bob, carol, id } = await world();
        const { chain } = await alice.groups.entry(id);
        const now = Date.now();
        await alice.groups.setTimer(id, 60);
        // carol's change is older than alice's but reaches everyone after it (as if it crossed alice's on the way).
        await carol.groups.post(MessageContent.settings(5), chain.current, [alice.token, bob.token],
            { sentAt: now - 1000 });
        for (const member of [alice, bob, carol]) {
            assert.equal((await member.groups.entry(id)).timer.disappearAfter, 60, member.account.nickname);
        }
        assert.ok((await bob.lines(id)).includes('[membership] carol set disappearing messages to 5 seconds '
            + '(a later change is kept)'));
        await alice.groups.remove(id, [carol.token]);
        const old = (await carol.groups.entry(id)).chain.held;
        const stateBefore = [...old.values()].find((state) => state.version === 1);
        await carol.groups.post(MessageContent.settings(1), stateBefore, [alice.token, bob.token]);
        assert.equal((await bob.groups.entry(id)).timer.disappearAfter, 60);
        assert.ok((await bob.lines(id)).some((line) => /^\[refused\] refused settings from carol: .*not a member/.test(line)));
    });
});

describe('files in groups (one blob, every other member a reader)', () => {
    test('uploaded once for the members; each keeps it; anyone else gets unknown_blob', async () => {
        const { relay, alice, bob, carol, dave, id } = await world();
        relay.keepBlobs = true;
        const bytes = new TextEncoder().encode('meeting notes\n'.repeat(10_000));
        const sent = await alice.groups.sendAttachment(id, { name: 'notes.txt', mediaType: 'text/plain', bytes });
        assert.equal(relay.blobs.size, 1, 'one upload for the whole group');
        const [[blobID, blob]] = relay.blobs;
        assert.deepEqual([...blob.recipients].sort(), [String(bob.token), String(carol.token)].sort());
        for (const member of [bob, carol]) {
            const kept = await member.store.message(id, String(alice.token), sent.id);
            assert.equal(kept.content.type, 'attachment');
            assert.deepEqual(await member.store.attachment(kept), bytes, member.account.nickname);
            assert.ok(blob.acknowledged.has(String(member.token)));
        }
        assert.equal(GroupReceipts.mark(await alice.store.message(id, String(alice.token), sent.id)), '✓✓ 2/2');
        await assert.rejects(dave.relay.downloadBlob(blobID), { code: 'unknown_blob' });
        // After carol's removal the next file is not hers to fetch.
        await alice.groups.remove(id, [carol.token]);
        await alice.groups.sendAttachment(id, { name: 'second.txt', mediaType: 'text/plain', bytes: bytes.slice(0, 10) });
        const [, second] = [...relay.blobs].at(-1);
        assert.deepEqual([...second.recipients], [String(bob.token)]);
        await assert.rejects(carol.relay.downloadBlob([...relay.blobs.keys()].at(-1)), { code: 'unknown_blob' });
    });

    test('a disappearing file\'s blob expires with its message', async () => {
        const { relay, alice, id } = await world();
        await alice.groups.setTimer(id, 30);
        const created = [];
        const original = relay.createBlob.bind(relay);
        relay.createBlob = (caller, request) => {
            created.push(request);
            return original(caller, request);
        };
        const sent = await alice.groups.sendAttachment(id, { name: 'a.bin', mediaType: '', bytes: new Uint8Array(5) });
        assert.equal(created[0].expiresAt, sent.expiresAt);
        assert.equal(sent.expiresAt, sent.sentAt + 30_000);
        assert.equal(sent.content.disappearAfter, 30);
    });
});
