import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { concatBytes, fromBase64, fromHex, toBase64, utf8 } from '../js/crypto/bytes.js';
import { ed25519KeyFromSeed } from '../js/crypto/ed25519.js';
import { Nickname } from '../js/crypto/nickname.js';
import { RestoreProof } from '../js/crypto/proofs.js';
import { SecretKeys } from '../js/crypto/secret.js';
import { sha256 } from '../js/crypto/sha.js';
import { pythonMissing, pythonReference } from '../testing/tools.mjs';

const u16 = (count) => [count >> 8, count & 0xff];
// Fixed bytes, so the keys need no scrypt: the restore key depends on the authentication key alone.
const authenticationKey = Uint8Array.from({ length: 32 }, (_, i) => 0xa0 ^ i);
const keys = SecretKeys.fromKeys(new Uint8Array(32), authenticationKey);
const relayID = Uint8Array.from({ length: 16 }, (_, i) => i + 1);
const nonce = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const nickname = new Nickname('Alice');
const challenge = { relayID, nonce, nickname };

describe('restore key and secret verifier', () => {
    test('the seed is SHA-256("wots-restore-key-v1" 0x00 || authenticationKey), the verifier its Ed25519 public key', async () => {
        assert.deepEqual(SecretKeys.restoreKeyLabel, concatBytes(utf8('wots-restore-key-v1'), [0]));
        const seed = await sha256(concatBytes(utf8('wots-restore-key-v1'), [0], authenticationKey));
        const { publicKey } = await ed25519KeyFromSeed(seed);
        const verifier = await keys.secretVerifier();
        assert.deepEqual(verifier, publicKey);
        assert.equal(verifier.length, 32);
        const { privateKey } = await keys.restoreKey();
        assert.equal(privateKey.extractable, false, 'the restore private key never leaves WebCrypto');
        assert.equal(privateKey.algorithm.name, 'Ed25519');
    });

    test('RFC 8032 test 1: the seed 9d61b19d… gives the public key d75a9801…', async () => {
        const seed = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
        const { publicKey } = await ed25519KeyFromSeed(seed);
        assert.equal(toBase64(publicKey), toBase64(fromHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')));
    });

    test('equals the Python reference’s (cryptography, OpenSSL) for the same authentication key', { skip: pythonMissing }, async () => {
        const reference = pythonReference('secret-verifier', { authenticationKey: toBase64(authenticationKey) });
        assert.equal(toBase64(await keys.secretVerifier()), reference.secretVerifier);
    });
});

describe('restore signature (RestoreProof)', () => {
    test('signs "wots-restore-v1" 0x00 u16-bytes(relayID) u16-bytes(nonce) u16-bytes(lower-cased nickname)', () => {
        const label = concatBytes(utf8('wots-restore-v1'), [0]);
        const expected = concatBytes(label, u16(16), relayID, u16(32), nonce, u16(5), utf8('alice'));
        assert.deepEqual(RestoreProof.signedBytes(challenge), expected);
        assert.deepEqual(RestoreProof.label, label);
    });

    test('is the Python reference’s signature byte for byte (Ed25519 is deterministic), and each verifies the other’s', { skip: pythonMissing }, async () => {
        const fields = { relayID: toBase64(relayID), nonce: toBase64(nonce), nickname: 'Alice' };
        assert.equal(toBase64(RestoreProof.signedBytes(challenge)), pythonReference('signed-bytes', { kind: 'restore', ...fields }).bytes);
        const ours = await keys.signRestore(challenge);
        assert.equal(ours.length, 64);
        const theirs = pythonReference('sign-restore', { ...fields, authenticationKey: toBase64(authenticationKey) }).signature;
        assert.equal(toBase64(ours), theirs);
        const secretVerifier = toBase64(await keys.secretVerifier());
        assert.equal(pythonReference('verify-restore', { ...fields, secretVerifier, signature: toBase64(ours) }).valid, true);
        assert.equal(pythonReference('verify-restore', { ...fields, nickname: 'mallory', secretVerifier, signature: toBase64(ours) }).valid, false, 'Python’s check can fail');
        const fromPython = { signature: fromBase64(theirs), secretVerifier: fromBase64(secretVerifier) };
        assert.ok(await RestoreProof.verify({ ...challenge, ...fromPython }));
    });

    test('does not verify for another relay, nonce, nickname or secret, nor with a malformed verifier', async () => {
        const signature = await keys.signRestore(challenge);
        const secretVerifier = await keys.secretVerifier();
        const verify = (changes) => RestoreProof.verify({ ...challenge, signature, secretVerifier, ...changes });
        assert.ok(await verify({}));
        assert.ok(!(await verify({ relayID: nonce })));
        assert.ok(!(await verify({ nonce: relayID })));
        assert.ok(!(await verify({ nickname: new Nickname('alicia') })));
        const other = SecretKeys.fromKeys(new Uint8Array(32), authenticationKey.map((byte) => byte ^ 1));
        assert.ok(!(await verify({ secretVerifier: await other.secretVerifier() })));
        assert.ok(!(await verify({ secretVerifier: secretVerifier.subarray(1) })));
        assert.ok(!(await verify({ signature: signature.subarray(1) })));
        assert.ok(!(await verify({ relayID: new Uint8Array(0) })));
    });

    test('needs a relay id and nonce of 1–65,535 bytes', async () => {
        const empty = new Uint8Array(0);
        const refused = [{ relayID: empty }, { nonce: empty }, { nonce: new Uint8Array(65536) }];
        for (const change of refused) {
            assert.throws(() => RestoreProof.signedBytes({ ...challenge, ...change }), (error) => error.code === 'malformed');
            await assert.rejects(keys.signRestore({ ...challenge, ...change }), (error) => error.code === 'malformed');
        }
    });
});
