import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { fromHex, randomBytes, toHex, utf8 } from '../js/crypto/bytes.js';
import { scrypt } from '../js/crypto/scrypt.js';
import { opensslMissing, opensslScrypt } from '../testing/tools.mjs';

// RFC 7914 §12, all four vectors.
const rfcVectors = [
    {
        password: '', salt: '', n: 16, r: 1, p: 1,
        expected: '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
    },
    {
        password: 'password', salt: 'NaCl', n: 1024, r: 8, p: 16,
        expected: 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
    },
    {
        password: 'pleaseletmein', salt: 'SodiumChloride', n: 16384, r: 8, p: 1,
        expected: '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
    },
    {
        password: 'pleaseletmein', salt: 'SodiumChloride', n: 1048576, r: 8, p: 1, slow: true,
        expected: '2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa478e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4',
    },
];

describe('scrypt (RFC 7914)', () => {
    for (const vector of rfcVectors) {
        const name = `§12 vector N=${vector.n}, r=${vector.r}, p=${vector.p}${vector.slow ? ' (slow: 1 GiB, 8–15 s; WOTS_SKIP_SLOW_TESTS=1 skips it)' : ''}`;
        const skip = vector.slow && process.env.WOTS_SKIP_SLOW_TESTS === '1' ? 'WOTS_SKIP_SLOW_TESTS=1 is set' : false;
        test(name, { skip, timeout: 120_000 }, async () => {
            const { password, salt, n, r, p } = vector;
            const output = await scrypt({ password: utf8(password), salt: utf8(salt), n, r, p, length: 64 });
            assert.equal(toHex(output), vector.expected);
        });
    }

    test('matches OpenSSL’s own scrypt for random passwords, salts and costs', { skip: opensslMissing }, async () => {
        const costs = [
            { n: 2, r: 1, p: 1, length: 64 },
            { n: 256, r: 3, p: 2, length: 33 },
            { n: 1024, r: 8, p: 1, length: 64 },
            { n: 4096, r: 1, p: 4, length: 100 },
            { n: 2 ** 15, r: 8, p: 1, length: 64 },
        ];
        for (const cost of costs) {
            const randomLength = (minimum, maximum) => minimum + (randomBytes(1)[0] % (maximum - minimum + 1));
            const password = randomBytes(randomLength(1, 40));
            const input = { password, salt: randomBytes(randomLength(16, 64)), ...cost };
            assert.equal(toHex(await scrypt(input)), toHex(opensslScrypt(input)), JSON.stringify(cost));
        }
    });

    test('reports progress from 0 to 1, in order, a few dozen times', async () => {
        const reports = [];
        await scrypt({ password: utf8('x'), salt: utf8('salt'), n: 1024, r: 2, p: 3, length: 32 }, { onProgress: (fraction) => reports.push(fraction) });
        assert.equal(reports[0], 0);
        assert.equal(reports.at(-1), 1);
        assert.ok(reports.length >= 10 && reports.length <= 80, `${reports.length} reports`);
        for (let i = 1; i < reports.length; i++) assert.ok(reports[i] >= reports[i - 1], 'progress never goes back');
    });

    test('refuses parameters scrypt does not define', async () => {
        const base = { password: utf8('x'), salt: utf8('y'), n: 16, r: 1, p: 1, length: 32 };
        for (const change of [{ n: 1 }, { n: 24 }, { n: 0 }, { r: 0 }, { p: 0 }, { length: 0 }, { n: 16.5 }]) {
            await assert.rejects(scrypt({ ...base, ...change }), RangeError, JSON.stringify(change));
        }
    });

    test('an empty password gives RFC 7914’s value whichever way WebCrypto treats a zero-length PBKDF2 key', async () => {
        // Vector 1 covers it; this pins the reason: HMAC pads any key shorter than 64 bytes with zeros.
        const empty = await scrypt({ password: new Uint8Array(0), salt: fromHex('00'), n: 16, r: 1, p: 1, length: 16 });
        const zeros = await scrypt({ password: new Uint8Array(64), salt: fromHex('00'), n: 16, r: 1, p: 1, length: 16 });
        assert.deepEqual(empty, zeros);
    });
});
