import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { concatBytes, fromBase64, utf8 } from '../js/crypto/bytes.js';
import { AESGCM, sealAESGCM } from '../js/crypto/aes-gcm.js';
import { CryptoError, DomainError } from '../js/crypto/errors.js';
import { Envelope } from '../js/crypto/envelope.js';
import { EnvelopeHeader } from '../js/crypto/envelope-header.js';
import { openEnvelope, verifyEnvelopeSignature } from '../js/crypto/envelope-sealing.js';
import { ParsedPublicKeys } from '../js/crypto/keys.js';
import { MessagePadding } from '../js/crypto/message-padding.js';
import { encryptOAEP } from '../js/crypto/rsa.js';
import { newParty, readVector, rejectsWith, vectorParty } from '../testing/tools.mjs';

const vector = readVector();
const serialized = fromBase64(vector.serialized);
let alice;
let bob;
let mallory;

before(async () => {
    [alice, bob, mallory] = await Promise.all([vectorParty(vector.sender), vectorParty(vector.recipient), newParty()]);
    mallory.publicKeys = mallory.identity.publicKeys;
});

const open = (envelope, { as = bob, senderKeys = alice.publicKeys } = {}) =>
    openEnvelope(envelope, { recipient: as.token, identity: as.identity, senderKeys });

/** The vector with one byte flipped at `offset`, parsed again (the layout is unchanged, only a value). */
function flipped(offset) {
    const bytes = serialized.slice();
    bytes[offset] ^= 0x01;
    return Envelope.fromSerialized(bytes);
}

/**
 * An envelope `signer` really signed, built from parts a sender could choose (a wrong key size, a broken padding),
 * so the checks after the signature are reached.
 */
async function signedBy(signer, { padded = MessagePadding.pad(utf8('hello')), wrap } = {}) {
    const contentKey = crypto.getRandomValues(new Uint8Array(32));
    const { header } = Envelope.fromSerialized(serialized);
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = await sealAESGCM({ key: contentKey, nonce, aad: header.encoded, plaintext: padded });
    const recipientKey = (await ParsedPublicKeys.parse(bob.publicKeys)).encryption;
    const wrappedKey = await encryptOAEP(recipientKey, wrap ?? contentKey);
    const envelope = new Envelope({ header, wrappedKey, nonce, ciphertext, signature: new Uint8Array(0) });
    envelope.signature = await signer.identity.sign(envelope.signedBytes);
    return envelope;
}

// Offsets in the vector's binary form (SECURITY.md "Header" and "Binary form").
const wrappedKeyAt = 121 + 2;
const nonceAt = wrappedKeyAt + 256 + 2;
const ciphertextAt = nonceAt + 12 + 4;
const signatureAt = serialized.length - 256;

describe('opening refuses a changed envelope, naming the first check that fails', () => {
    const cases = [
        ['message id', 1, 'bad_signature'],
        ['sender token', 17, 'bad_signature'],
        ['sender fingerprint', 33, 'sender_key_mismatch'],
        ['recipient token', 65, 'not_for_me'],
        ['recipient fingerprint', 81, 'not_for_me'],
        // Byte 113, the highest, would put sentAt beyond 2^53 − 1: parsing refuses that (envelope.test.mjs).
        ['sent at (second byte, still below 2^53)', 114, 'bad_signature'],
        ['sent at (low byte)', 120, 'bad_signature'],
        ['wrapped key', wrappedKeyAt + 100, 'bad_signature'],
        ['nonce', nonceAt + 5, 'bad_signature'],
        ['ciphertext', ciphertextAt, 'bad_signature'],
        ['GCM tag', signatureAt - 2 - 1, 'bad_signature'],
        ['signature', signatureAt + 200, 'bad_signature'],
    ];
    for (const [field, offset, code] of cases) {
        test(`${field} → ${code}`, async () => {
            await rejectsWith(assert, open(flipped(offset)), CryptoError, code);
        });
    }

    test('version: the binary form refuses it as unsupported, and so does opening', async () => {
        const bytes = serialized.slice();
        bytes[0] = 3;
        assert.throws(() => Envelope.fromSerialized(bytes), (error) => error instanceof DomainError && error.code === 'unsupported_version');
        const envelope = Envelope.fromSerialized(serialized);
        envelope.header.version = 3;
        await rejectsWith(assert, open(envelope), CryptoError, 'unsupported_version');
        await rejectsWith(assert, verifyEnvelopeSignature(envelope, alice.publicKeys), CryptoError, 'unsupported_version');
    });

    test('checks in SECURITY.md’s order: version, recipient, sender key, signature', async () => {
        const envelope = flipped(signatureAt + 1); // a bad signature under everything else
        envelope.header.senderFingerprint = mallory.identity.fingerprint;
        await rejectsWith(assert, open(envelope), CryptoError, 'sender_key_mismatch');
        envelope.header.recipientFingerprint = mallory.identity.fingerprint;
        await rejectsWith(assert, open(envelope), CryptoError, 'not_for_me');
        envelope.header.version = 9;
        await rejectsWith(assert, open(envelope), CryptoError, 'unsupported_version');
    });

    test('decrypts nothing before the signature verifies', async () => {
        let decryptions = 0;
        const spy = {
            fingerprint: bob.identity.fingerprint,
            decrypt: async (bytes) => {
                decryptions++;
                return bob.identity.decrypt(bytes);
            },
        };
        const opener = { recipient: bob.token, identity: spy, senderKeys: alice.publicKeys };
        await rejectsWith(assert, openEnvelope(flipped(ciphertextAt + 3), opener), CryptoError, 'bad_signature');
        assert.equal(decryptions, 0);
        await openEnvelope(Envelope.fromSerialized(serialized), opener);
        assert.equal(decryptions, 1, 'the spy does see a good envelope');
    });
});

describe('opening refuses the wrong people and keys', () => {
    test('another recipient → not_for_me', async () => {
        await rejectsWith(assert, open(Envelope.fromSerialized(serialized), { as: mallory }), CryptoError, 'not_for_me');
    });

    test('the right token under keys the recipient has since rotated → not_for_me', async () => {
        await rejectsWith(assert, open(Envelope.fromSerialized(serialized), { as: { token: bob.token, identity: mallory.identity } }), CryptoError, 'not_for_me');
    });

    test('sender keys other than those the header names → sender_key_mismatch', async () => {
        await rejectsWith(assert, open(Envelope.fromSerialized(serialized), { senderKeys: mallory.publicKeys }), CryptoError, 'sender_key_mismatch');
    });

    test('re-signed by another key, sender fields unchanged → bad_signature', async () => {
        const envelope = Envelope.fromSerialized(serialized);
        envelope.signature = await mallory.identity.sign(envelope.signedBytes);
        await rejectsWith(assert, open(envelope), CryptoError, 'bad_signature');
    });

    test('re-signed as her own by another user (sender fields hers) → decryption_failed: the header is the GCM associated data', async () => {
        const envelope = Envelope.fromSerialized(serialized);
        envelope.header.sender = mallory.token;
        envelope.header.senderFingerprint = mallory.identity.fingerprint;
        envelope.signature = await mallory.identity.sign(envelope.signedBytes);
        await rejectsWith(assert, open(envelope, { senderKeys: mallory.publicKeys }), CryptoError, 'decryption_failed');
    });

    test('forwarded to a third person under a rewritten recipient → bad_signature, or decryption_failed if re-signed', async () => {
        const carol = await newParty();
        const envelope = Envelope.fromSerialized(serialized);
        envelope.header.recipient = carol.token;
        envelope.header.recipientFingerprint = carol.identity.fingerprint;
        await rejectsWith(assert, open(envelope, { as: carol }), CryptoError, 'bad_signature');
    });
});

describe('opening refuses what a sender signed but cannot be decrypted or unpadded', () => {
    test('a wrapped key that is not 32 bytes → decryption_failed', async () => {
        await rejectsWith(assert, open(await signedBy(alice, { wrap: new Uint8Array(16) })), CryptoError, 'decryption_failed');
    });

    test('a wrapped key for someone else → decryption_failed', async () => {
        const envelope = await signedBy(alice);
        const malloryKey = (await ParsedPublicKeys.parse(mallory.publicKeys)).encryption;
        envelope.wrappedKey = await encryptOAEP(malloryKey, new Uint8Array(32));
        envelope.signature = await alice.identity.sign(envelope.signedBytes);
        await rejectsWith(assert, open(envelope), CryptoError, 'decryption_failed');
    });

    test('a ciphertext under another content key → decryption_failed', async () => {
        await rejectsWith(assert, open(await signedBy(alice, { wrap: crypto.getRandomValues(new Uint8Array(32)) })), CryptoError, 'decryption_failed');
    });

    test('a ciphertext shorter than a tag → decryption_failed', async () => {
        const envelope = await signedBy(alice);
        envelope.ciphertext = new Uint8Array(8);
        envelope.signature = await alice.identity.sign(envelope.signedBytes);
        await rejectsWith(assert, open(envelope), CryptoError, 'decryption_failed');
    });

    const badPaddings = [
        ['no 0x80 marker', concatBytes(utf8('hi'), new Uint8Array(254))],
        ['not a multiple of 256', concatBytes(utf8('hi'), [0x80], new Uint8Array(100))],
        ['more than 256 bytes of padding', concatBytes(utf8('hi'), [0x80], new Uint8Array(509))],
        ['empty', new Uint8Array(0)],
    ];
    for (const [what, padded] of badPaddings) {
        test(`padding: ${what} → malformed`, async () => {
            await rejectsWith(assert, open(await signedBy(alice, { padded })), CryptoError, 'malformed');
        });
    }

    test('the helper makes envelopes that do open (so the refusals above are about the one change)', async () => {
        assert.equal((await open(await signedBy(alice))).text, 'hello');
    });
});

describe('parsing refuses truncated and garbage binary forms', () => {
    test('every truncation → malformed_envelope', () => {
        for (let length = 0; length < serialized.length; length++) {
            assert.throws(() => Envelope.fromSerialized(serialized.subarray(0, length)), (error) => error instanceof DomainError && error.code === 'malformed_envelope', `${length} bytes`);
        }
    });

    test('trailing bytes → malformed_envelope', () => {
        assert.throws(() => Envelope.fromSerialized(concatBytes(serialized, [0])), (error) => error.code === 'malformed_envelope' && /1 trailing bytes/.test(error.message));
    });

    test('a nonce that is not 12 bytes → malformed_envelope', () => {
        const envelope = Envelope.fromSerialized(serialized);
        envelope.nonce = new Uint8Array(AESGCM.nonceSize - 1);
        assert.throws(() => Envelope.fromSerialized(envelope.serialized), (error) => error.code === 'malformed_envelope' && /nonce is 11 bytes/.test(error.message));
    });

    test('random garbage → malformed_envelope, unsupported_version or sent_at_out_of_range, never anything else', () => {
        for (let round = 0; round < 500; round++) {
            const garbage = crypto.getRandomValues(new Uint8Array(1 + (round % 1200)));
            if (round % 2 === 0) garbage[0] = EnvelopeHeader.currentVersion;
            assert.throws(() => Envelope.fromSerialized(garbage), (error) => error instanceof DomainError && ['malformed_envelope', 'unsupported_version', 'sent_at_out_of_range'].includes(error.code));
        }
    });
});

describe('the JSON form refuses bad fields', () => {
    const cases = [
        ['version 3', { version: 3 }, 'unsupported_version'],
        ['version 1 with expiresAt', { expiresAt: 0 }, 'malformed_envelope'],
        ['version 2 without expiresAt', { version: 2 }, 'malformed_envelope'],
        ['version as text', { version: '1' }, 'malformed_envelope'],
        ['an id that is not a UUID', { id: 'not-a-uuid' }, 'malformed_envelope'],
        ['an uppercase token', { sender: vector.envelope.sender.toUpperCase() }, 'invalid_token'],
        ['a grouped fingerprint', { senderFingerprint: vector.envelope.senderFingerprint.match(/.{4}/g).join(' ') }, 'invalid_fingerprint'],
        ['a short fingerprint', { recipientFingerprint: 'abcd' }, 'invalid_fingerprint'],
        ['a negative sentAt', { sentAt: -1 }, 'malformed_envelope'],
        ['a fractional sentAt', { sentAt: 1.5 }, 'malformed_envelope'],
        ['a sentAt of 2^53', { sentAt: 2 ** 53 }, 'sent_at_out_of_range'],
        ['a sentAt JSON cannot carry exactly', { sentAt: 2 ** 53 + 2 }, 'sent_at_out_of_range'],
        ['a sentAt of 1e300', { sentAt: 1e300 }, 'sent_at_out_of_range'],
        ['a sentAt as text', { sentAt: '5' }, 'malformed_envelope'],
        ['an 11-byte nonce', { nonce: 'AAAAAAAAAAAAAAA=' }, 'malformed_envelope'],
        ['base64url', { signature: vector.envelope.signature.replaceAll('+', '-').replaceAll('/', '_') }, 'malformed_envelope'],
        ['a missing ciphertext', { ciphertext: undefined }, 'malformed_envelope'],
    ];
    for (const [what, change, code] of cases) {
        test(`${what} → ${code}`, () => {
            assert.throws(
                () => Envelope.fromJSON({ ...vector.envelope, ...change }),
                (error) => error instanceof DomainError && error.code === code,
            );
        });
    }
});
