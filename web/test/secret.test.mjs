import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { randomBytes, toBase64, toHex, utf8 } from '../js/crypto/bytes.js';
import { CryptoError } from '../js/crypto/errors.js';
import { scrypt } from '../js/crypto/scrypt.js';
import { KeyDerivationBounds, KeyDerivationParameters, SecretKeys, secretBytes } from '../js/crypto/secret.js';
import { derivedKeys, floorCost, floorParameters, opensslMissing, opensslScrypt, pythonMissing, pythonReference } from '../testing/tools.mjs';

const floor = floorCost;

describe('key derivation bounds', () => {
    test('are the ones SECURITY.md states, in one object', () => {
        assert.deepEqual(JSON.parse(JSON.stringify(KeyDerivationBounds)), {
            saltLength: { minimum: 16, maximum: 64 },
            n: { minimum: 32768, maximum: 1048576 },
            r: { minimum: 8, maximum: 32 },
            p: { minimum: 1, maximum: 4 },
            maximumMemory: 268435456,
        });
        assert.ok(Object.isFrozen(KeyDerivationBounds) && Object.isFrozen(KeyDerivationBounds.n));
    });

    test('accept the edges of every bound', () => {
        const accepted = [
            { salt: randomBytes(16), n: 2 ** 15, r: 8, p: 1 },
            { salt: randomBytes(64), n: 2 ** 18, r: 8, p: 4 },
            { salt: randomBytes(32), n: 2 ** 16, r: 32, p: 1 },
        ];
        for (const fields of accepted) {
            const shown = JSON.stringify({ ...fields, salt: fields.salt.length });
            assert.doesNotThrow(() => new KeyDerivationParameters(fields).validate(), shown);
        }
    });

    test('refuse every parameter out of bounds, naming the rule', () => {
        const refused = [
            [{ salt: randomBytes(15) }, /salt is 15 bytes \(must be 16–64\)/],
            [{ salt: randomBytes(65) }, /salt is 65 bytes/],
            [{ n: 2 }, /N = 2 is not a power of two from 2\^15 to 2\^20/],
            [{ n: 2 ** 14 }, /N = 16384 is not a power of two from 2\^15/],
            [{ n: 3 * 2 ** 14 }, /N = 49152 is not a power of two/],
            [{ n: 2 ** 21 }, /N = 2097152/],
            [{ r: 7 }, /r = 7, p = 1 out of bounds \(r 8–32, p 1–4\)/],
            [{ r: 1 }, /r = 1/],
            [{ r: 33 }, /r = 33/],
            [{ p: 0 }, /p = 0/],
            [{ p: 5 }, /p = 5/],
            [{ n: 2 ** 19 }, /N = 524288, r = 8 needs more than 256 MiB/],
            [{ n: 2 ** 17, r: 17 }, /needs more than 256 MiB/],
        ];
        for (const [change, reason] of refused) {
            const parameters = new KeyDerivationParameters({ salt: randomBytes(16), ...floor, ...change });
            const refusal = (error) => error instanceof CryptoError && error.code === 'invalid_key_derivation' && reason.test(error.message);
            assert.throws(() => parameters.validate(), refusal, String(reason));
        }
    });

    test('are checked before any work is done: a hostile relay’s cheap or huge cost derives nothing', async () => {
        for (const cost of [{ n: 2, r: 1, p: 1 }, { n: 2 ** 20, r: 32, p: 4 }]) {
            const parameters = new KeyDerivationParameters({ salt: randomBytes(16), ...cost });
            let progressed = false;
            const started = performance.now();
            const derivation = SecretKeys.derive('secret', parameters, { onProgress: () => (progressed = true) });
            await assert.rejects(derivation, (error) => error.code === 'invalid_key_derivation');
            assert.ok(performance.now() - started < 1000);
            assert.equal(progressed, false, JSON.stringify(cost));
        }
    });

    test('are the Python reference’s: it refuses a cost below the floor too', { skip: pythonMissing }, () => {
        const salt = toBase64(randomBytes(16));
        for (const cost of [{ n: 2 ** 14, r: 8, p: 1 }]) {
            assert.deepEqual(pythonReference('derive-secret', { secret: 'x', parameters: { salt, ...cost } }), { error: 'invalid_key_derivation' });
            assert.throws(() => new KeyDerivationParameters({ salt: randomBytes(16), ...cost }).validate(), (error) => error.code === 'invalid_key_derivation');
        }
    });

    test('default to N = 2^15, r = 8, p = 1 with a fresh 16-byte salt', () => {
        const first = KeyDerivationParameters.random();
        const second = KeyDerivationParameters.random();
        assert.deepEqual([first.n, first.r, first.p, first.salt.length], [32768, 8, 1, 16]);
        assert.notDeepEqual(first.salt, second.salt);
        const json = first.toJSON();
        assert.deepEqual(json, { salt: toBase64(first.salt), n: 32768, r: 8, p: 1 });
        assert.deepEqual(KeyDerivationParameters.fromJSON(json), first);
    });
});

describe('secret keys', () => {
    test('are the two halves of scrypt over the NFC form, and the verifier is the restore public key (Python)', { skip: pythonMissing }, async () => {
        const secret = 'Cafe\u0301 crème brûlée — 秘密 🔑';
        const keys = await derivedKeys(secret);
        const reference = pythonReference('derive-secret', { secret, parameters: floorParameters.toJSON() });
        assert.equal(toBase64(keys.encryptionKey), reference.encryptionKey);
        assert.equal(toBase64(keys.authenticationKey), reference.authenticationKey);
        const verifier = await keys.secretVerifier();
        assert.equal(verifier.length, 32);
        assert.equal(toBase64(verifier), reference.secretVerifier);
        assert.equal(keys.toString(), 'SecretKeys(2 × 256 bits)');
        assert.ok(!JSON.stringify({ keys }).includes(toBase64(keys.encryptionKey)));
        assert.equal(SecretKeys.verifier, undefined, 'the SHA-256 verifier is gone');
    });

    test('do not depend on how the secret was composed (NFC), and match OpenSSL on the NFC bytes', { skip: opensslMissing }, async () => {
        const composed = 'Ångström naïve café ñ \u1E9B\u0323';
        const decomposed = composed.normalize('NFD');
        assert.notEqual(composed, decomposed);
        assert.deepEqual(secretBytes(decomposed), utf8(composed.normalize('NFC')));
        const fromDecomposed = await derivedKeys(decomposed);
        const reference = opensslScrypt({ password: composed.normalize('NFC'), salt: floorParameters.salt, ...floor, length: 64 });
        assert.equal(toHex(fromDecomposed.encryptionKey) + toHex(fromDecomposed.authenticationKey), toHex(reference));
    });

    test('non-ASCII secrets: their scrypt input matches OpenSSL given their NFC text (pass:) and their bytes (hexpass:)', { skip: opensslMissing }, async () => {
        // The encoding does not depend on the cost, so a cheap raw scrypt checks it; the test above does the floor.
        const secrets = ['пароль', 'パスワード', 'e\u0301te\u0301 🌞', 'ǅungla'];
        for (const secret of secrets) {
            const cost = { salt: randomBytes(16), n: 256, r: 4, p: 2, length: 64 };
            const derived = toHex(await scrypt({ password: secretBytes(secret), ...cost }));
            assert.equal(derived, toHex(opensslScrypt({ password: secret.normalize('NFC'), ...cost })), secret);
            assert.equal(derived, toHex(opensslScrypt({ password: secretBytes(secret), ...cost })), secret);
        }
    });

    test('progress reaches the caller, and the derivation is the raw scrypt', async () => {
        const fractions = [];
        const keys = await SecretKeys.derive('abc', floorParameters, { onProgress: (fraction) => fractions.push(fraction) });
        assert.equal(fractions[0], 0);
        assert.equal(fractions.at(-1), 1);
        const raw = await scrypt({ password: utf8('abc'), salt: floorParameters.salt, ...floor, length: 64 });
        assert.deepEqual(keys.encryptionKey, raw.slice(0, 32));
        assert.deepEqual(keys.authenticationKey, raw.slice(32));
    });
});
