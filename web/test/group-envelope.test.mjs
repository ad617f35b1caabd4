import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { concatBytes, fromBase64, fromHex, toBase64, toHex, utf8 } from '../js/crypto/bytes.js';
import { GroupEnvelope } from '../js/crypto/group-envelope.js';
import { GroupEnvelopeHeader } from '../js/crypto/group-envelope-header.js';
import {
    keyCommitment, openGroupEnvelope, sealGroupEnvelope, verifyGroupEnvelopeForRelay,
} from '../js/crypto/group-envelope-sealing.js';
import { GroupID, GroupMember, GroupState } from '../js/crypto/group-state.js';
import { Fingerprint } from '../js/crypto/fingerprint.js';
import { MessageContent } from '../js/content/message-content.js';
import { sealAESGCM } from '../js/crypto/aes-gcm.js';
import { GroupRecipient } from '../js/crypto/group-envelope-header.js';
import { ParsedPublicKeys } from '../js/crypto/keys.js';
import { MessagePadding } from '../js/crypto/message-padding.js';
import { encryptOAEP } from '../js/crypto/rsa.js';
import { sha256 } from '../js/crypto/sha.js';
import { checkWithVectorScript, pythonMissing, readVector, vectorParty } from '../testing/tools.mjs';

const vector = readVector('group-envelope-v1.json');
let alice;
let bob;
let carol;

before(async () => {
    [alice, bob, carol] = await Promise.all([vector.sender, ...vector.recipients].map(vectorParty));
});

const slotOf = (party) => fromBase64(vector.slots.find((slot) => slot.recipient === String(party.token)).wrappedKey);
const openAs = (party, envelope, slot = slotOf(party), senderKeys = alice.publicKeys) =>
    openGroupEnvelope(envelope, { slot, recipient: party.token, identity: party.identity, senderKeys });

describe('the committed group envelope vector (Swift-sealed)', () => {
    test('state bytes and hash are rebuilt from the state’s JSON fields', async () => {
        const state = GroupState.fromJSON(vector.state);
        state.validate();
        assert.equal(toBase64(state.stateBytes), vector.stateBytes);
        assert.equal(toHex(await state.stateHash()), vector.stateHash);
        assert.deepEqual(JSON.parse(JSON.stringify(state)), vector.state);
    });

    test('every recipient opens it to the expected plaintext', async () => {
        const envelope = GroupEnvelope.fromSerialized(fromBase64(vector.serialized));
        for (const party of [bob, carol]) {
            const opened = await openAs(party, envelope);
            assert.equal(new TextDecoder().decode(opened.plaintext), vector.plaintext);
            assert.ok(!String(opened).includes('vector'), 'describing a message never shows it');
            MessageContent.checkTimer(MessageContent.decode(opened.plaintext), opened.header);
        }
    });

    test('has SECURITY.md’s header layout and signs the label, header, nonce and ciphertext', async () => {
        const serialized = fromBase64(vector.serialized);
        const envelope = GroupEnvelope.fromSerialized(serialized);
        const { header } = envelope;
        assert.equal(toBase64(envelope.serialized), vector.serialized);
        const encoded = header.encoded;
        assert.equal(encoded.length, 179 + 80 * 2);
        assert.deepEqual(encoded, serialized.subarray(0, encoded.length));
        assert.equal(encoded[0], 3);
        assert.deepEqual(encoded.subarray(17, 33), alice.token.bytes);
        assert.equal(toHex(encoded.subarray(33, 65)), vector.sender.fingerprint);
        assert.equal(toHex(encoded.subarray(65, 81)), vector.state.id);
        assert.equal(header.membershipVersion, 1n);
        assert.equal(toHex(encoded.subarray(89, 121)), vector.stateHash);
        const contentKey = await keyCommitment(new Uint8Array(32));
        assert.equal(contentKey.length, 32);
        assert.deepEqual(envelope.signedBytes,
            concatBytes(utf8('wots-group-v1'), [0], serialized.subarray(0, serialized.length - 2 - 256)));
        const tokens = header.recipients.map((entry) => String(entry.token));
        assert.deepEqual(tokens, [...tokens].sort((a, b) => (a < b ? -1 : 1)), 'recipients sorted by token bytes');
    });

    test('passes the relay’s check with its slots in header order', async () => {
        const envelope = GroupEnvelope.fromSerialized(fromBase64(vector.serialized));
        const slots = vector.slots.map((slot) => ({
            recipient: parseToken(slot.recipient), wrappedKey: fromBase64(slot.wrappedKey),
        }));
        await verifyGroupEnvelopeForRelay(envelope, alice.publicKeys, slots);
        await assert.rejects(verifyGroupEnvelopeForRelay(envelope, alice.publicKeys, [...slots].reverse()),
            { code: 'malformed' });
        const swapped = [{ ...slots[0], wrappedKey: slots[1].wrappedKey }, slots[1]];
        await assert.rejects(verifyGroupEnvelopeForRelay(envelope, alice.publicKeys, swapped),
            { code: 'bad_signature' });
    });
});

function parseToken(text) {
    return [alice, bob, carol].find((party) => String(party.token) === text).token;
}

async function secondState() {
    const first = GroupState.fromJSON(vector.state);
    const kept = first.members.filter((member) => !member.token.equals(carol.token));
    const { fingerprint } = first.member(carol.token);
    const rejoined = new GroupMember({ token: carol.token, fingerprint, joinedAt: 2 });
    return new GroupState({
        id: first.id, version: 2, previous: await first.stateHash(), name: 'Web / group ✓ 👋', avatar: null,
        members: [...kept, rejoined],
    });
}

async function sealFromAlice(options = {}) {
    const { text = 'hello group', disappearAfter = 0, sentAt = Date.now(), state, recipients } = options;
    const named = state ?? GroupState.fromJSON(vector.state);
    return sealGroupEnvelope({
        plaintext: MessageContent.encode(MessageContent.text(text, { disappearAfter })),
        sentAt,
        expiresAt: disappearAfter ? sentAt + disappearAfter * 1000 : 0,
        sender: alice.token,
        identity: alice.identity,
        groupID: named.id,
        membershipVersion: named.version,
        membershipStateHash: await named.stateHash(),
        senderSequence: 7,
        recipients: recipients ?? [carol, bob].map((party) => ({ token: party.token, publicKeys: party.publicKeys })),
    });
}

describe('sealing', () => {
    test('round-trips for every recipient, the header sorted and 179 + 80 × n bytes', async () => {
        for (const size of [0, 300, 5000]) {
            const { envelope, slots } = await sealFromAlice({ text: 'x'.repeat(size) });
            const parsed = GroupEnvelope.fromSerialized(envelope.serialized);
            assert.equal(parsed.header.encoded.length, 179 + 160);
            assert.equal(parsed.header.senderSequence, 7n);
            const listed = parsed.header.recipients.map((entry) => String(entry.token));
            assert.deepEqual(slots.map((slot) => String(slot.recipient)), listed);
            assert.equal(parsed.ciphertext.length % 256, 16, 'padded to a multiple of 256, then the tag');
            for (const party of [bob, carol]) {
                const slot = slots.find((s) => s.recipient.equals(party.token)).wrappedKey;
                const opened = await openAs(party, parsed, slot);
                assert.equal(MessageContent.decode(opened.plaintext).text, 'x'.repeat(size));
            }
        }
    });

    test('refuses an empty or duplicated recipient list', async () => {
        await assert.rejects(sealFromAlice({ recipients: [] }), { code: 'malformed_envelope' });
        const twice = [bob, bob].map((party) => ({ token: party.token, publicKeys: party.publicKeys }));
        await assert.rejects(sealFromAlice({ recipients: twice }), { code: 'malformed_envelope' });
    });

    test('what the browser seals opens in Python from SECURITY.md alone (scripts/check_group_envelope_vector.py)',
        { skip: pythonMissing }, async () => {
            const state = await secondState();
            state.validate();
            const sentAt = Date.now();
            const text = 'sealed by the web client for bob and carol';
            const { envelope, slots } = await sealFromAlice({ text, disappearAfter: 60, sentAt, state });
            const party = async (p, nickname, raw) => ({
                nickname, token: String(p.token), publicKeys: p.publicKeys.toJSON(),
                fingerprint: p.identity.fingerprint.hex, encryptionPrivateKey: raw.encryptionPrivateKey,
            });
            const ours = {
                state: state.toJSON(),
                stateBytes: toBase64(state.stateBytes),
                stateHash: toHex(await state.stateHash()),
                serialized: toBase64(envelope.serialized),
                plaintext: JSON.stringify(MessageContent.text(text, { disappearAfter: 60 })),
                sender: { token: String(alice.token), publicKeys: alice.publicKeys.toJSON() },
                recipients: [
                    await party(bob, 'bob', vector.recipients[0]), await party(carol, 'carol', vector.recipients[1]),
                ],
                slots: slots.map((slot) => ({
                    recipient: String(slot.recipient), wrappedKey: toBase64(slot.wrappedKey),
                })),
            };
            const result = checkWithVectorScript(ours, 'check_group_envelope_vector.py');
            assert.ok(result.ok, result.output);
            const [first, second] = ours.slots;
            const swapped = [{ ...first, wrappedKey: second.wrappedKey }, { ...second, wrappedKey: first.wrappedKey }];
            const failed = checkWithVectorScript({ ...ours, slots: swapped }, 'check_group_envelope_vector.py');
            assert.ok(!failed.ok, 'swapped slots fail there too');
        });
});

// Offsets in the vector's body (SECURITY.md, "Group envelope (version 3)"), with two recipients.
const serialized = fromBase64(vector.serialized);
const entriesAt = 179;
const nonceAt = 179 + 160 + 2;
const ciphertextAt = nonceAt + 12 + 4;
const signatureAt = serialized.length - 256;

function flipped(offset) {
    const bytes = serialized.slice();
    bytes[offset] ^= 0x01;
    return bytes;
}

describe('opening refuses a changed envelope, naming the first check that fails', () => {
    // bob's entry is the first: his token sorts before carol's.
    const cases = [
        ['message id', 1, 'bad_signature'],
        ['sender token', 17, 'bad_signature'],
        ['sender fingerprint', 33, 'sender_key_mismatch'],
        ['group id', 65, 'bad_signature'],
        ['membership version', 81, 'bad_signature'],
        ['membership state hash', 89, 'bad_signature'],
        ['sender sequence', 121, 'bad_signature'],
        ['sent at', 136, 'bad_signature'],
        ['expires at', 144, 'bad_signature'],
        ['key commitment', 145, 'bad_signature'],
        ['bob’s token in the recipient list', entriesAt, 'not_for_me'],
        ['bob’s listed key fingerprint', entriesAt + 16, 'not_for_me'],
        ['bob’s slot hash', entriesAt + 48, 'bad_signature'],
        ['carol’s entry', entriesAt + 80 + 20, 'bad_signature'],
        ['nonce', nonceAt, 'bad_signature'],
        ['ciphertext', ciphertextAt, 'bad_signature'],
        ['GCM tag', signatureAt - 2 - 1, 'bad_signature'],
        ['signature', signatureAt + 10, 'bad_signature'],
    ];
    for (const [region, offset, code] of cases) {
        test(`a flipped byte in the ${region} → ${code}`, async () => {
            await assert.rejects(openAs(bob, GroupEnvelope.fromSerialized(flipped(offset))), { code });
        });
    }

    test('structural damage is refused while parsing', () => {
        assert.throws(() => GroupEnvelope.fromSerialized(flipped(0)), { code: 'unsupported_version' });
        assert.throws(() => GroupEnvelope.fromSerialized(serialized.subarray(0, 300)), { code: 'malformed_envelope' });
        assert.throws(() => GroupEnvelope.fromSerialized(concatBytes(serialized, [0])), { code: 'malformed_envelope' });
        const count = serialized.slice();
        count[178] = 0;
        assert.throws(() => GroupEnvelope.fromSerialized(count), { code: 'malformed_envelope' });
        const unsorted = serialized.slice();
        unsorted.set(serialized.subarray(entriesAt + 80, entriesAt + 160), entriesAt);
        unsorted.set(serialized.subarray(entriesAt, entriesAt + 80), entriesAt + 80);
        assert.throws(() => GroupEnvelope.fromSerialized(unsorted), { code: 'malformed_envelope' });
        const zeroVersion = serialized.slice();
        zeroVersion[88] = 0;
        assert.throws(() => GroupEnvelope.fromSerialized(zeroVersion), { code: 'malformed_envelope' });
    });

    test('a flipped slot, or another member’s slot, never reaches RSA (bad_signature)', async () => {
        const envelope = GroupEnvelope.fromSerialized(serialized);
        const slot = slotOf(bob);
        slot[0] ^= 1;
        await assert.rejects(openAs(bob, envelope, slot), { code: 'bad_signature' });
        await assert.rejects(openAs(bob, envelope, slotOf(carol)), { code: 'bad_signature' });
        await assert.rejects(openAs(carol, envelope, slotOf(bob)), { code: 'bad_signature' });
    });

    test('another sender’s keys → sender_key_mismatch; another key for bob → not_for_me', async () => {
        const envelope = GroupEnvelope.fromSerialized(serialized);
        await assert.rejects(openAs(bob, envelope, slotOf(bob), bob.publicKeys), { code: 'sender_key_mismatch' });
        const impostor = { token: bob.token, identity: carol.identity };
        await assert.rejects(openAs(impostor, envelope, slotOf(bob)), { code: 'not_for_me' });
    });
});

describe('a sender that signs what it should not', () => {
    /**
     * A body alice really signs and encrypts under K, with the recipients' slots wrapping the keys `keyFor` gives
     * (K unless told otherwise) and the header committing to `committed` (K unless told otherwise).
     */
    async function signedBody({ keyFor = (_, key) => key, committed } = {}) {
        const key = crypto.getRandomValues(new Uint8Array(32));
        const recipients = [bob, carol].sort((a, b) => (toHex(a.token.bytes) < toHex(b.token.bytes) ? -1 : 1));
        const slots = await Promise.all(recipients.map(async (party) =>
            encryptOAEP((await ParsedPublicKeys.parse(party.publicKeys)).encryption, keyFor(party, key))));
        const state = GroupState.fromJSON(vector.state);
        const header = new GroupEnvelopeHeader({
            messageID: crypto.randomUUID(), sender: alice.token, senderFingerprint: alice.identity.fingerprint,
            groupID: state.id, membershipVersion: 1, membershipStateHash: await state.stateHash(), senderSequence: 1,
            sentAtMilliseconds: Date.now(), keyCommitment: await keyCommitment(committed ?? key),
            recipients: await Promise.all(recipients.map(async (party, i) => new GroupRecipient({
                token: party.token, fingerprint: party.identity.fingerprint, slotHash: await sha256(slots[i]),
            }))),
        });
        const plaintext = MessagePadding.pad(MessageContent.encode(MessageContent.text('one message for all')));
        const nonce = crypto.getRandomValues(new Uint8Array(12));
        const ciphertext = await sealAESGCM({ key, nonce, aad: header.encoded, plaintext });
        const envelope = new GroupEnvelope({ header, nonce, ciphertext, signature: new Uint8Array(0) });
        envelope.signature = await alice.identity.sign(envelope.signedBytes);
        const slotFor = (party) => slots[recipients.indexOf(party)];
        return { envelope: GroupEnvelope.fromSerialized(envelope.serialized), slotFor };
    }

    test('the parts built by hand open as sealing makes them (the helper is sound)', async () => {
        const { envelope, slotFor } = await signedBody();
        for (const party of [bob, carol]) await openAs(party, envelope, slotFor(party));
    });

    test('a slot wrapping another key than the committed one → decryption_failed (no invisible salamanders)',
        async () => {
            const other = crypto.getRandomValues(new Uint8Array(32));
            const { envelope, slotFor } = await signedBody({ keyFor: (party, key) => (party === carol ? other : key) });
            await openAs(bob, envelope, slotFor(bob));
            await assert.rejects(openAs(carol, envelope, slotFor(carol)), { code: 'decryption_failed' });
        });

    test('a commitment to another key than the one every slot wraps → decryption_failed', async () => {
        const { envelope, slotFor } = await signedBody({ committed: new Uint8Array(32).fill(7) });
        for (const party of [bob, carol]) {
            await assert.rejects(openAs(party, envelope, slotFor(party)), { code: 'decryption_failed' });
        }
    });

    test('a slot wrapping a 16-byte key → decryption_failed', async () => {
        const keyFor = (party, key) => (party === bob ? key.slice(0, 16) : key);
        const { envelope, slotFor } = await signedBody({ keyFor });
        await assert.rejects(openAs(bob, envelope, slotFor(bob)), { code: 'decryption_failed' });
    });
});

describe('group state rules (SECURITY.md, "Group state and its hash")', () => {
    const member = (token, extra = {}) => new GroupMember({
        token, fingerprint: new Fingerprint(new Uint8Array(32).fill(1)), joinedAt: 1, ...extra,
    });
    const state = (fields) => new GroupState({
        id: new GroupID(new Uint8Array(16)), version: 1, previous: new Uint8Array(32), name: 'g',
        members: [member(bob.token, { isAdmin: true })], ...fields,
    });

    test('a valid state passes; members are sorted by token bytes whatever the order given', () => {
        const s = state({ members: [member(carol.token), member(bob.token, { isAdmin: true }), member(alice.token)] });
        s.validate();
        const hexes = s.members.map((m) => toHex(m.token.bytes));
        assert.deepEqual(hexes, [...hexes].sort());
    });

    const refusals = [
        ['version 0', { version: 0 }],
        ['version 2 with no previous hash', { version: 2 }],
        ['version 1 with a previous hash', { previous: new Uint8Array(32).fill(1) }],
        ['an empty name', { name: '' }],
        ['a 101-byte name', { name: 'é'.repeat(50) + 'x' }],
        ['a control character in the name', { name: 'a\u0007b' }],
        ['an unknown avatar', { avatar: 'unicorn' }],
        ['no admin', { members: [() => member(bob.token)] }],
        ['a duplicate member', { members: [() => member(bob.token, { isAdmin: true }), () => member(bob.token)] }],
        ['a member who joined later than the version',
            { members: [() => member(bob.token, { isAdmin: true, joinedAt: 2 })] }],
    ];
    for (const [what, fields] of refusals) {
        test(`refuses ${what}`, () => {
            const resolved = { ...fields };
            if (fields.members) resolved.members = fields.members.map((make) => make());
            assert.throws(() => state(resolved).validate(), { code: 'malformed' });
        });
    }

    test('JSON with a bad spelling is refused', () => {
        const json = JSON.parse(JSON.stringify(vector.state));
        assert.throws(() => GroupState.fromJSON({ ...json, id: 'xyz' }), { code: 'malformed' });
        assert.throws(() => GroupState.fromJSON({ ...json, previous: '00' }), { code: 'malformed' });
        assert.throws(() => GroupState.fromJSON({ ...json, version: 2 ** 53 }), { code: 'malformed' });
        assert.throws(() => GroupState.fromJSON({ ...json, members: [{ ...json.members[0], admin: 'yes' }] }),
            { code: 'malformed' });
        assert.equal(fromHex(json.id).length, 16);
        assert.equal(GroupEnvelopeHeader.fixedSize, 179);
    });
});
