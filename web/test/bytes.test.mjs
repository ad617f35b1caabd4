import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
    ByteReader,
    ByteWriter,
    compareBytes,
    concatBytes,
    constantTimeEqual,
    fromBase32,
    fromBase64,
    fromHex,
    label,
    toBase32,
    toBase64,
    toHex,
} from '../js/crypto/bytes.js';
import { DomainError } from '../js/crypto/errors.js';
import { Nickname } from '../js/crypto/nickname.js';
import { Token } from '../js/crypto/token.js';
import { readVector } from '../testing/tools.mjs';

const bytes = (...values) => Uint8Array.from(values);

describe('spellings', () => {
    test('hex is lowercase two digits per byte and parses either case', () => {
        assert.equal(toHex(bytes(0, 1, 0xab, 0xff)), '0001abff');
        assert.deepEqual(fromHex('0001ABff'), bytes(0, 1, 0xab, 0xff));
        assert.equal(fromHex('abc'), null);
        assert.equal(fromHex('zz'), null);
    });

    test('base64 is standard with padding and only its canonical spelling parses', () => {
        assert.equal(toBase64(bytes(0xfb, 0xff)), '+/8=');
        assert.deepEqual(fromBase64('+/8='), bytes(0xfb, 0xff));
        for (const bad of ['+/8', '-_8=', '+/9=', ' +/8=', '+/8=\n', 'AAAA=']) assert.equal(fromBase64(bad), null, bad);
        const large = Uint8Array.from({ length: 100_000 }, (_, i) => i * 7);
        assert.deepEqual(fromBase64(toBase64(large)), large);
        assert.equal(toBase64(large), Buffer.from(large).toString('base64'));
    });

    test('base32 follows RFC 4648 test vectors in lowercase without padding', () => {
        const cases = [['', ''], ['f', 'my'], ['fo', 'mzxq'], ['foo', 'mzxw6'], ['foob', 'mzxw6yq'], ['fooba', 'mzxw6ytb'], ['foobar', 'mzxw6ytboi']];
        for (const [plain, encoded] of cases) {
            assert.equal(toBase32(new TextEncoder().encode(plain)), encoded);
            assert.deepEqual(fromBase32(encoded), new TextEncoder().encode(plain));
        }
        assert.equal(fromBase32('MZXW6'), null, 'uppercase is not the token spelling');
        assert.equal(fromBase32('mzxw7'), null, 'non-zero unused bits have one spelling only');
        assert.equal(fromBase32('mzxw6='), null, 'no padding');
    });

    test('a token is 16 bytes spelled as 26 base32 characters', () => {
        const { sender } = readVector();
        const token = Token.parse(sender.token);
        assert.equal(token.bytes.length, 16);
        assert.equal(token.toString(), sender.token);
        assert.equal(JSON.stringify({ token }), `{"token":"${sender.token}"}`);
        assert.equal(Token.random().toString().length, 26);
        for (const bad of [sender.token.toUpperCase(), sender.token.slice(1), `${sender.token}a`, 'zijosdxwlrzlbou3pc4us3bmi1', 'zijosdxwlrzlbou3pc4us3bmij']) {
            assert.throws(() => Token.parse(bad), (error) => error instanceof DomainError && error.code === 'invalid_token', bad);
        }
    });

    test('a nickname is lower-cased and limited to 3–32 of a-z 0-9 _ . -', () => {
        assert.equal(new Nickname('Alice_B.c-9').value, 'alice_b.c-9');
        for (const bad of ['al', 'a'.repeat(33), 'al ice', 'älice', 'bob!']) {
            assert.throws(() => new Nickname(bad), (error) => error.code === 'invalid_nickname', bad);
        }
    });
});

describe('layouts', () => {
    test('the writer writes big-endian integers and length prefixes', () => {
        const written = new ByteWriter()
            .writeU8(1)
            .writeU16(0x0203)
            .writeU32(0x04050607)
            .writeU64(0x08090a0b0c0d0e0fn)
            .writeU16Prefixed(bytes(0xaa))
            .writeU32Prefixed(bytes(0xbb, 0xcc)).bytes;
        assert.equal(toHex(written), '01020304050607' + '08090a0b0c0d0e0f' + '0001aa' + '00000002bbcc');
        assert.equal(toHex(new ByteWriter().writeU64(2n ** 64n - 1n).bytes), 'ffffffffffffffff');
        assert.throws(() => new ByteWriter().writeU64(2n ** 64n));
        assert.throws(() => new ByteWriter().writeU16(0x10000));
        assert.throws(() => new ByteWriter().writeU16Prefixed(new Uint8Array(0x10000)));
    });

    test('the reader reads what the writer wrote and reports a short input as null', () => {
        const writer = new ByteWriter().writeU8(7).writeU64(2n ** 63n + 5n);
        const reader = new ByteReader(writer.writeU16Prefixed(bytes(1, 2)).writeU32Prefixed(bytes(3)).bytes);
        assert.equal(reader.readU8(), 7);
        assert.equal(reader.readU64(), 2n ** 63n + 5n);
        assert.deepEqual(reader.readU16Prefixed(), bytes(1, 2));
        assert.deepEqual(reader.readU32Prefixed(), bytes(3));
        assert.equal(reader.remaining, 0);
        assert.equal(reader.readU8(), null);
        assert.equal(new ByteReader(bytes(0, 5, 1)).readU16Prefixed(), null);
    });

    test('a label is its ASCII text and one zero byte', () => {
        assert.deepEqual(label('ab'), bytes(0x61, 0x62, 0));
    });

    test('comparison helpers', () => {
        assert.deepEqual(concatBytes(bytes(1), bytes(), bytes(2, 3)), bytes(1, 2, 3));
        assert.ok(constantTimeEqual(bytes(1, 2), bytes(1, 2)));
        assert.ok(!constantTimeEqual(bytes(1, 2), bytes(1, 3)));
        assert.ok(!constantTimeEqual(bytes(1, 2), bytes(1, 2, 0)));
        assert.ok(compareBytes(bytes(1, 2), bytes(1, 3)) < 0);
        assert.ok(compareBytes(bytes(2), bytes(1, 9)) > 0);
        assert.equal(compareBytes(bytes(4, 4), bytes(4, 4)), 0);
    });
});
