import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { concatBytes, fromBase64, toBase64, toHex, utf8 } from '../js/crypto/bytes.js';
import { DomainError } from '../js/crypto/errors.js';
import { Envelope } from '../js/crypto/envelope.js';
import { EnvelopeHeader } from '../js/crypto/envelope-header.js';
import { openEnvelope, sealEnvelope } from '../js/crypto/envelope-sealing.js';
import { safetyNumber } from '../js/crypto/fingerprint.js';
import { MessagePadding } from '../js/crypto/message-padding.js';
import { checkWithVectorScript, newParty, pythonMissing, pythonReference, readVector, vectorParty } from '../testing/tools.mjs';

const vector = readVector();
let alice;
let bob;

before(async () => {
    [alice, bob] = await Promise.all([vectorParty(vector.sender), vectorParty(vector.recipient)]);
});

const openAsBob = (envelope) =>
    openEnvelope(envelope, { recipient: bob.token, identity: bob.identity, senderKeys: alice.publicKeys });
const sealFromAlice = (fields) => {
    const from = { sender: alice.token, identity: alice.identity };
    return sealEnvelope({ ...from, recipient: bob.token, recipientKeys: bob.publicKeys, ...fields });
};

describe('the committed envelope v1 vector', () => {
    test('opens to the expected plaintext with the vector’s keys', async () => {
        const opened = await openAsBob(Envelope.fromSerialized(fromBase64(vector.serialized)));
        assert.equal(opened.text, vector.plaintext);
        assert.equal(opened.messageID, vector.envelope.id);
        assert.equal(String(opened.sender), vector.sender.token);
        assert.equal(opened.sentAt.toISOString(), '2025-01-01T00:00:00.250Z');
        assert.ok(!String(opened).includes(vector.plaintext.slice(0, 10)), 'describing a message never shows it');
    });

    test('JSON form and binary form say the same, both ways', () => {
        const binary = Envelope.fromSerialized(fromBase64(vector.serialized));
        const json = Envelope.fromJSON(vector.envelope);
        assert.deepEqual(json.toJSON(), vector.envelope);
        assert.deepEqual(binary.toJSON(), vector.envelope);
        assert.equal(toBase64(json.serialized), vector.serialized);
    });

    test('has the 121-byte header layout of SECURITY.md', () => {
        const serialized = fromBase64(vector.serialized);
        const { header } = Envelope.fromSerialized(serialized);
        const encoded = header.encoded;
        assert.equal(encoded.length, EnvelopeHeader.encodedSize);
        assert.deepEqual(encoded, serialized.subarray(0, 121));
        assert.equal(encoded[0], 1);
        assert.equal(toHex(encoded.subarray(1, 17)), vector.envelope.id.replaceAll('-', '').toLowerCase());
        assert.deepEqual(encoded.subarray(17, 33), alice.token.bytes);
        assert.equal(toHex(encoded.subarray(33, 65)), vector.sender.fingerprint);
        assert.deepEqual(encoded.subarray(65, 81), bob.token.bytes);
        assert.equal(toHex(encoded.subarray(81, 113)), vector.recipient.fingerprint);
        assert.equal(header.sentAtMilliseconds, 1735689600250n);
        const sentAt = new DataView(encoded.buffer, encoded.byteOffset + 113, 8).getBigUint64(0);
        assert.equal(sentAt, BigInt(vector.envelope.sentAt));
    });

    test('signs the label, a zero byte and the binary form without its signature field', () => {
        const serialized = fromBase64(vector.serialized);
        const envelope = Envelope.fromSerialized(serialized);
        assert.deepEqual(envelope.signedBytes, concatBytes(utf8('wots-envelope-v1'), [0], serialized.subarray(0, serialized.length - 2 - 256)));
        const signatureLength = serialized.subarray(serialized.length - 258, serialized.length - 256);
        assert.deepEqual(signatureLength, Uint8Array.from([1, 0]));
    });
});

describe('sealing', () => {
    test('round-trips, padding every size to a multiple of 256 bytes', async () => {
        for (const [size, padded] of [[0, 256], [1, 256], [255, 256], [256, 512], [1000, 1024]]) {
            const plaintext = crypto.getRandomValues(new Uint8Array(size));
            const envelope = await sealFromAlice({ plaintext });
            assert.equal(envelope.ciphertext.length, padded + 16, `${size} bytes`);
            assert.equal(envelope.serialized.length, 129 + 2 + 256 + 2 + 12 + 4 + padded + 16 + 2 + 256);
            assert.deepEqual((await openAsBob(envelope)).plaintext, plaintext);
        }
    });

    test('draws a fresh content key, nonce and message id for every message', async () => {
        const seal = () => sealFromAlice({ plaintext: utf8('same'), sentAt: 5 });
        const [first, second] = await Promise.all([seal(), seal()]);
        assert.notDeepEqual(first.nonce, second.nonce);
        assert.notDeepEqual(first.wrappedKey, second.wrappedKey);
        assert.notEqual(first.header.messageID, second.header.messageID);
        assert.match(first.header.messageID, /^[0-9A-F]{8}-[0-9A-F]{4}-7[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
    });

    test('carries sentAt as a u64 of at most 2^53 − 1 ms: dates, numbers and BigInts, in both forms', async () => {
        const seal = (sentAt) => sealFromAlice({ plaintext: utf8('t'), sentAt });
        assert.equal(EnvelopeHeader.maximumSentAtMilliseconds, 2n ** 53n - 1n);
        assert.equal((await seal(new Date('2030-01-02T03:04:05.678Z'))).header.sentAtMilliseconds, 1893553445678n);
        const edge = await seal(2n ** 53n - 1n);
        const reparsed = Envelope.fromSerialized(edge.serialized);
        assert.equal(reparsed.header.sentAtMilliseconds, 2n ** 53n - 1n);
        assert.equal((await openAsBob(reparsed)).header.sentAtMilliseconds, 2n ** 53n - 1n);
        assert.equal(edge.toJSON().sentAt, 2 ** 53 - 1);
        assert.equal(Envelope.fromJSON(JSON.parse(JSON.stringify(edge))).header.sentAtMilliseconds, 2n ** 53n - 1n);
        for (const beyond of [2n ** 53n, 2 ** 53, 2n ** 64n - 1n, 2n ** 64n]) {
            await assert.rejects(seal(beyond), (error) => error instanceof DomainError && error.code === 'sent_at_out_of_range', String(beyond));
        }
        await assert.rejects(seal(-1), (error) => error.code === 'malformed_envelope');
    });

    test('a binary envelope whose sentAt is beyond 2^53 − 1 → sent_at_out_of_range, before any signature check', async () => {
        const bytes = (await sealFromAlice({ plaintext: utf8('t'), sentAt: 5 })).serialized.slice();
        const view = new DataView(bytes.buffer, bytes.byteOffset + 113, 8);
        for (const beyond of [2n ** 53n, 2n ** 64n - 1n]) {
            view.setBigUint64(0, beyond);
            assert.throws(() => Envelope.fromSerialized(bytes), (error) => error instanceof DomainError && error.code === 'sent_at_out_of_range', String(beyond));
        }
        view.setBigUint64(0, 2n ** 53n - 1n);
        assert.equal(Envelope.fromSerialized(bytes).header.sentAtMilliseconds, 2n ** 53n - 1n);
    });

    test('an envelope Python sealed with sentAt 2^53 is refused → sent_at_out_of_range', { skip: pythonMissing }, () => {
        const { serialized } = pythonReference('seal-envelope', {
            sender: {
                token: vector.sender.token,
                publicKeys: vector.sender.publicKeys,
                signingPrivateKey: vector.sender.signingPrivateKey,
            },
            recipient: { token: vector.recipient.token, publicKeys: vector.recipient.publicKeys },
            plaintext: 'from the far future',
            sentAt: 2 ** 53,
        });
        assert.throws(() => Envelope.fromSerialized(fromBase64(serialized)), (error) => error.code === 'sent_at_out_of_range');
    });

    for (const version of [1, 2]) {
    test(`opens in Python: scripts/check_envelope_vector.py accepts a v${version} vector sealed here`, { skip: pythonMissing }, async () => {
        const carol = await newParty();
        const text = 'Sealed in JavaScript. Ünïcødé ✓ 👋 — and long enough to need a second block? '.repeat(4);
        const sentAt = Date.now();
        // Version 2 carries typed content with a one-minute timer, so the script also checks expiresAt against it.
        const plaintext = version === 1 ? text : JSON.stringify({ type: 'text', text, disappearAfter: 60 });
        const envelope = await sealEnvelope({
            plaintext: utf8(plaintext),
            sender: carol.token,
            identity: carol.identity,
            recipient: bob.token,
            recipientKeys: bob.publicKeys,
            version,
            sentAt,
            expiresAt: version === 1 ? 0 : sentAt + 60_000,
        });
        const ours = {
            description: 'sealed by web/js/crypto in a test',
            sender: {
                token: String(carol.token),
                publicKeys: carol.identity.publicKeys.toJSON(),
                fingerprint: carol.identity.fingerprint.hex,
            },
            recipient: { ...vector.recipient },
            plaintext,
            serialized: toBase64(envelope.serialized),
            envelope: envelope.toJSON(),
            safetyNumber: await safetyNumber(carol.identity.publicKeys, bob.publicKeys),
        };
        const result = checkWithVectorScript(ours);
        assert.ok(result.ok, result.output);
        assert.match(result.output, /OK/);
        const tampered = { ...ours, plaintext: `${plaintext}!` };
        assert.ok(!checkWithVectorScript(tampered).ok, 'the script can fail: it refuses the wrong plaintext');
    });
    }

    test('opens envelopes sealed by Python’s cryptography (OpenSSL)', { skip: pythonMissing }, async () => {
        const plaintext = 'Sealed in Python ✓ '.repeat(20);
        const { serialized, id } = pythonReference('seal-envelope', {
            sender: {
                token: vector.sender.token,
                publicKeys: vector.sender.publicKeys,
                signingPrivateKey: vector.sender.signingPrivateKey,
            },
            recipient: { token: vector.recipient.token, publicKeys: vector.recipient.publicKeys },
            plaintext,
            sentAt: 2 ** 53 - 1,
        });
        const envelope = Envelope.fromSerialized(fromBase64(serialized));
        const opened = await openAsBob(envelope);
        assert.equal(opened.text, plaintext);
        assert.equal(opened.messageID, id);
        assert.equal(envelope.toJSON().sentAt, 2 ** 53 - 1);
    });
});

describe('padding', () => {
    test('adds 0x80 then zeros to the next multiple of 256, always at least one byte', () => {
        assert.deepEqual(MessagePadding.pad(Uint8Array.from([7])), concatBytes([7, 0x80], new Uint8Array(254)));
        assert.equal(MessagePadding.pad(new Uint8Array(256)).length, 512);
        assert.equal(MessagePadding.pad(new Uint8Array(256))[256], 0x80);
    });

    test('removal requires a non-zero multiple of 256, the 0x80 marker, and at most 256 bytes of padding', () => {
        assert.deepEqual(MessagePadding.unpad(MessagePadding.pad(utf8('hi'))), utf8('hi'));
        assert.deepEqual(MessagePadding.unpad(concatBytes(new Uint8Array(255).fill(0), [0x80])), new Uint8Array(255));
        const refused = [
            new Uint8Array(0),
            new Uint8Array(255).fill(0x80),
            new Uint8Array(256),
            concatBytes(new Uint8Array(255).fill(1), [0x81]),
            concatBytes([0x80], new Uint8Array(511)),
        ];
        for (const padded of refused) assert.throws(() => MessagePadding.unpad(padded), (error) => error.code === 'malformed', `${padded.length} bytes`);
    });
});
