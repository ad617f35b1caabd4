import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { randomBytes, toBase64, toHex, utf8 } from '../js/crypto/bytes.js';
import { CryptoError } from '../js/crypto/errors.js';
import { scrypt } from '../js/crypto/scrypt.js';
import { KeyDerivationBounds, KeyDerivationParameters, SecretKeys, secretBytes } from '../js/crypto/secret.js';
import { opensslMissing, opensslScrypt, pythonMissing, pythonReference } from '../testing/tools.mjs';

const cheap = { n: 1024, r: 8, p: 1 };

describe('key derivation bounds', () => {
    test('are the ones SECURITY.md states, in one object', () => {
        assert.deepEqual(JSON.parse(JSON.stringify(KeyDerivationBounds)), {
            saltLength: { minimum: 16, maximum: 64 },
            n: { minimum: 2, maximum: 1048576 },
            r: { minimum: 1, maximum: 32 },
            p: { minimum: 1, maximum: 4 },
            maximumMemory: 268435456,
        });
        assert.ok(Object.isFrozen(KeyDerivationBounds) && Object.isFrozen(KeyDerivationBounds.n));
    });

    test('accept the edges of every bound', () => {
        const accepted = [
            { salt: randomBytes(16), n: 2, r: 1, p: 1 },
            { salt: randomBytes(64), n: 2 ** 20, r: 2, p: 4 },
            { salt: randomBytes(32), n: 2 ** 13, r: 32, p: 1 },
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
            [{ n: 1 }, /N = 1 is not a power of two/],
            [{ n: 3000 }, /N = 3000 is not a power of two/],
            [{ n: 2 ** 21, r: 1 }, /N = 2097152/],
            [{ r: 0 }, /r = 0, p = 1 out of bounds/],
            [{ r: 33 }, /r = 33/],
            [{ p: 0 }, /p = 0/],
            [{ p: 5 }, /p = 5/],
            [{ n: 2 ** 20, r: 3 }, /needs more than 256 MiB/],
            [{ n: 2 ** 17, r: 17 }, /needs more than 256 MiB/],
        ];
        for (const [change, reason] of refused) {
            const parameters = new KeyDerivationParameters({ salt: randomBytes(16), ...cheap, ...change });
            assert.throws(() => parameters.validate(), (error) => error instanceof CryptoError && error.code === 'malformed' && reason.test(error.message), String(reason));
        }
    });

    test('are checked before any work is done', async () => {
        const parameters = new KeyDerivationParameters({ salt: randomBytes(16), n: 2 ** 20, r: 32, p: 4 });
        const started = performance.now();
        await assert.rejects(SecretKeys.derive('secret', parameters), (error) => error.code === 'malformed');
        assert.ok(performance.now() - started < 1000);
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
    test('are the two halves of scrypt over the NFC form, and the verifier hashes the second', { skip: pythonMissing }, async () => {
        const parameters = KeyDerivationParameters.random(cheap);
        const secret = 'Cafe\u0301 crème brûlée — 秘密 🔑';
        const keys = await SecretKeys.derive(secret, parameters);
        const reference = pythonReference('derive-secret', { secret, parameters: parameters.toJSON() });
        assert.equal(toBase64(keys.encryptionKey), reference.encryptionKey);
        assert.equal(toBase64(keys.authenticationKey), reference.authenticationKey);
        assert.equal(toBase64(keys.secretVerifier), reference.secretVerifier);
        assert.equal(keys.toString(), 'SecretKeys(2 × 256 bits)');
        assert.ok(!JSON.stringify({ keys }).includes(toBase64(keys.encryptionKey)));
    });

    test('with the default cost match Python’s hashlib.scrypt', { skip: pythonMissing }, async () => {
        const parameters = KeyDerivationParameters.random();
        const keys = await SecretKeys.derive('correct horse battery staple', parameters);
        const reference = pythonReference('derive-secret', { secret: 'correct horse battery staple', parameters: parameters.toJSON() });
        assert.equal(toBase64(keys.secretVerifier), reference.secretVerifier);
    });

    test('do not depend on how the secret was composed (NFC), and match OpenSSL on the NFC bytes', { skip: opensslMissing }, async () => {
        const composed = 'Ångström naïve café ñ \u1E9B\u0323';
        const decomposed = composed.normalize('NFD');
        assert.notEqual(composed, decomposed);
        assert.deepEqual(secretBytes(decomposed), utf8(composed.normalize('NFC')));
        const parameters = KeyDerivationParameters.random(cheap);
        const fromComposed = await SecretKeys.derive(composed, parameters);
        const fromDecomposed = await SecretKeys.derive(decomposed, parameters);
        assert.deepEqual(fromComposed.encryptionKey, fromDecomposed.encryptionKey);
        const reference = opensslScrypt({ password: composed.normalize('NFC'), salt: parameters.salt, ...cheap, length: 64 });
        assert.equal(toHex(fromDecomposed.encryptionKey) + toHex(fromDecomposed.authenticationKey), toHex(reference));
    });

    test('non-ASCII secrets match OpenSSL given their NFC text (pass:) and their bytes (hexpass:)', { skip: opensslMissing }, async () => {
        const secrets = ['пароль', 'パスワード', 'e\u0301te\u0301 🌞', 'ǅungla'];
        for (const secret of secrets) {
            const parameters = KeyDerivationParameters.random({ n: 256, r: 4, p: 2 });
            const keys = await SecretKeys.derive(secret, parameters);
            const cost = { salt: parameters.salt, n: 256, r: 4, p: 2, length: 64 };
            const derived = toHex(keys.encryptionKey) + toHex(keys.authenticationKey);
            assert.equal(derived, toHex(opensslScrypt({ password: secret.normalize('NFC'), ...cost })), secret);
            assert.equal(derived, toHex(opensslScrypt({ password: secretBytes(secret), ...cost })), secret);
        }
    });

    test('progress reaches the caller', async () => {
        const fractions = [];
        await SecretKeys.derive('x', KeyDerivationParameters.random(cheap), { onProgress: (fraction) => fractions.push(fraction) });
        assert.equal(fractions[0], 0);
        assert.equal(fractions.at(-1), 1);
    });

    test('the raw scrypt and the derivation agree', async () => {
        const parameters = KeyDerivationParameters.random(cheap);
        const keys = await SecretKeys.derive('abc', parameters);
        const raw = await scrypt({ password: utf8('abc'), salt: parameters.salt, ...cheap, length: 64 });
        assert.deepEqual(keys.encryptionKey, raw.slice(0, 32));
        assert.deepEqual(keys.authenticationKey, raw.slice(32));
    });
});
