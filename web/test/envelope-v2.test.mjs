import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { ByteReader, fromBase64, fromUTF8, toBase64, utf8 } from '../js/crypto/bytes.js';
import { MessageContent } from '../js/content/message-content.js';
import { DomainError } from '../js/crypto/errors.js';
import { Envelope } from '../js/crypto/envelope.js';
import { EnvelopeHeader } from '../js/crypto/envelope-header.js';
import { openEnvelope, sealEnvelope } from '../js/crypto/envelope-sealing.js';
import { readVector, vectorParty } from '../testing/tools.mjs';

const vector = readVector();
let alice;
let bob;

before(async () => {
    [alice, bob] = await Promise.all([vectorParty(vector.sender), vectorParty(vector.recipient)]);
});

const seal = (fields) => sealEnvelope({
    sender: alice.token, identity: alice.identity, recipient: bob.token, recipientKeys: bob.publicKeys, ...fields,
});
const openAsBob = (envelope) =>
    openEnvelope(envelope, { recipient: bob.token, identity: bob.identity, senderKeys: alice.publicKeys });
const refusedAs = (code) => (error) => error instanceof DomainError && error.code === code;

describe('envelope v2 (v2-spec §1)', () => {
    test('clients seal version 2: a 129-byte header ending in expiresAt, signed under wots-envelope-v2', async () => {
        const envelope = await seal({ plaintext: utf8('{"type":"text","text":"hi"}'), sentAt: 1000, expiresAt: 61_000 });
        assert.equal(envelope.header.version, 2);
        const header = envelope.header.encoded;
        assert.equal(header.length, 129);
        assert.equal(new ByteReader(header.subarray(121)).readU64(), 61_000n);
        assert.equal(fromUTF8(envelope.signedBytes.subarray(0, 17)), 'wots-envelope-v2\0');
        assert.equal(envelope.serialized[0], 2);
        const opened = await openAsBob(Envelope.fromSerialized(envelope.serialized));
        assert.equal(opened.text, '{"type":"text","text":"hi"}');
        assert.equal(opened.header.expiresAt.getTime(), 61_000);
    });

    test('expiresAt 0 means never, and the JSON form carries it as a number', async () => {
        const envelope = await seal({ plaintext: utf8('x') });
        assert.equal(envelope.header.expiresAt, null);
        const json = envelope.toJSON();
        assert.equal(json.version, 2);
        assert.equal(json.expiresAt, 0);
        const back = Envelope.fromJSON(JSON.parse(JSON.stringify(json)));
        assert.deepEqual(back.serialized, envelope.serialized);
    });

    test('version 1 still seals and opens, with no expiresAt in either form', async () => {
        const envelope = await seal({ plaintext: utf8('old relay'), version: 1 });
        assert.equal(envelope.header.encoded.length, 121);
        assert.equal(envelope.toJSON().expiresAt, undefined);
        assert.equal((await openAsBob(Envelope.fromSerialized(envelope.serialized))).text, 'old relay');
        await assert.rejects(seal({ plaintext: utf8('x'), version: 1, expiresAt: 5 }), refusedAs('malformed_envelope'));
    });

    test('an expiresAt not after sentAt, or beyond 2^53 − 1, is refused', async () => {
        await assert.rejects(seal({ plaintext: utf8('x'), sentAt: 5000, expiresAt: 5000 }), refusedAs('malformed_envelope'));
        await assert.rejects(seal({ plaintext: utf8('x'), sentAt: 5000, expiresAt: 10 }), refusedAs('malformed_envelope'));
        await assert.rejects(seal({ plaintext: utf8('x'), expiresAt: 2 ** 53 }), refusedAs('sent_at_out_of_range'));
        const json = (await seal({ plaintext: utf8('x'), sentAt: 5000 })).toJSON();
        assert.throws(() => Envelope.fromJSON({ ...json, expiresAt: 4000 }), refusedAs('malformed_envelope'));
        assert.throws(() => Envelope.fromJSON({ ...json, expiresAt: '0' }), refusedAs('malformed_envelope'));
    });

    test('a changed expiresAt breaks the signature: the relay cannot stretch a timer', async () => {
        const envelope = await seal({ plaintext: utf8('x'), sentAt: 1000, expiresAt: 2000 });
        const bytes = envelope.serialized.slice();
        bytes[128] ^= 0x01;
        await assert.rejects(openAsBob(Envelope.fromSerialized(bytes)), (error) => error.code === 'bad_signature');
    });

    test('a truncated v2 header is malformed, not read as v1', () => {
        const bytes = new Uint8Array(125);
        bytes[0] = 2;
        assert.throws(() => Envelope.fromSerialized(bytes), refusedAs('malformed_envelope'));
        assert.equal(EnvelopeHeader.sizeOf(2), 129);
    });
});

describe('the committed envelope v2 vector (schema/vectors/envelope-v2.json)', () => {
    const v2 = readVector('envelope-v2.json');

    test('opens with the vector’s keys to its typed content, whose timer matches the header', async () => {
        const [sender, recipient] = await Promise.all([vectorParty(v2.sender), vectorParty(v2.recipient)]);
        const envelope = Envelope.fromSerialized(fromBase64(v2.serialized));
        assert.equal(envelope.header.version, 2);
        const opened = await openEnvelope(envelope, {
            recipient: recipient.token, identity: recipient.identity, senderKeys: sender.publicKeys,
        });
        assert.equal(opened.text, v2.plaintext);
        const content = MessageContent.decode(opened.plaintext);
        assert.equal(content.type, 'text');
        assert.equal(content.disappearAfter, 3600);
        MessageContent.checkTimer(content, envelope.header);
        assert.equal(envelope.header.expiresAtMilliseconds - envelope.header.sentAtMilliseconds, 3_600_000n);
    });

    test('JSON form and binary form say the same, both ways', () => {
        const binary = Envelope.fromSerialized(fromBase64(v2.serialized));
        const json = Envelope.fromJSON(v2.envelope);
        assert.deepEqual(json.serialized, binary.serialized);
        assert.equal(toBase64(json.serialized), v2.serialized);
        assert.deepEqual(JSON.parse(JSON.stringify(binary.toJSON())).expiresAt, v2.envelope.expiresAt);
    });
});
