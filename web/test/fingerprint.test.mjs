import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { DomainError } from '../js/crypto/errors.js';
import { Fingerprint, fingerprintOf, SafetyNumber, safetyNumber } from '../js/crypto/fingerprint.js';
import { IdentityKeys, PublicKeys } from '../js/crypto/keys.js';
import { pythonMissing, pythonReference, readVector } from '../testing/tools.mjs';

const vector = readVector();
const alice = PublicKeys.fromJSON(vector.sender.publicKeys);
const bob = PublicKeys.fromJSON(vector.recipient.publicKeys);

describe('fingerprints', () => {
    test('are SHA-256 of both SPKIs, matching the vector', async () => {
        assert.equal((await fingerprintOf(alice)).hex, vector.sender.fingerprint);
        assert.equal((await fingerprintOf(bob)).hex, vector.recipient.fingerprint);
    });

    test('match Python’s, for the vector’s keys and for fresh keys', { skip: pythonMissing }, async () => {
        const fresh = (await IdentityKeys.generate()).publicKeys;
        const reference = pythonReference('fingerprints', { first: alice.toJSON(), second: fresh.toJSON() });
        assert.equal((await fingerprintOf(alice)).hex, reference.first);
        assert.equal((await fingerprintOf(fresh)).hex, reference.second);
    });

    test('are spelled as 64 hex digits on the wire and 16 groups of 4 for people', async () => {
        const fingerprint = await fingerprintOf(alice);
        assert.equal(fingerprint.grouped, '86ef ecd5 36a0 b132 b9a6 0d4e 8fb9 ebe5 d590 a256 b693 cf68 9885 a7b4 efad 36ac');
        assert.equal(JSON.stringify(fingerprint), `"${vector.sender.fingerprint}"`);
        assert.ok(Fingerprint.fromHex(fingerprint.grouped).equals(fingerprint));
        assert.ok(Fingerprint.fromHex(vector.sender.fingerprint.toUpperCase()).equals(fingerprint));
        for (const bad of ['', vector.sender.fingerprint.slice(2), `${vector.sender.fingerprint}00`, 'g'.repeat(64)]) {
            assert.throws(() => Fingerprint.fromHex(bad), (error) => error instanceof DomainError && error.code === 'invalid_fingerprint');
        }
    });
});

describe('safety numbers', () => {
    test('match the vector’s, in either order', async () => {
        assert.equal(await safetyNumber(alice, bob), vector.safetyNumber);
        assert.equal(await safetyNumber(bob, alice), vector.safetyNumber);
    });

    test('match Python’s for fresh keys', { skip: pythonMissing }, async () => {
        const fresh = (await IdentityKeys.generate()).publicKeys;
        const reference = pythonReference('fingerprints', { first: fresh.toJSON(), second: bob.toJSON() });
        assert.equal(await safetyNumber(fresh, bob), reference.safetyNumber);
    });

    test('are twelve groups of five digits and change when either side’s keys change', async () => {
        const [a, b] = await Promise.all([fingerprintOf(alice), fingerprintOf(bob)]);
        const number = await SafetyNumber.of(a, b);
        assert.equal(number.groups.length, 12);
        assert.match(number.digits, /^\d{60}$/);
        assert.match(String(number), /^\d{5}( \d{5}){11}$/);
        const other = (await IdentityKeys.generate()).fingerprint;
        assert.notEqual(String(await SafetyNumber.of(other, b)), String(number));
        assert.notEqual(String(await SafetyNumber.of(a, other)), String(number));
    });
});
