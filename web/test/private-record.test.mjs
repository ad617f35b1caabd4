import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { ByteWriter, concatBytes, fromBase64, randomBytes, toBase64, utf8 } from '../js/crypto/bytes.js';
import { sealAESGCM } from '../js/crypto/aes-gcm.js';
import { CryptoError } from '../js/crypto/errors.js';
import { PrivateRecord, SealedPrivateKeys } from '../js/crypto/private-record.js';
import { KeyDerivationParameters, SecretKeys } from '../js/crypto/secret.js';
import { Token } from '../js/crypto/token.js';
import { derivedKeys, floorParameters, pythonMissing, pythonReference, readVector, rejectsWith, vectorParty } from '../testing/tools.mjs';

const vector = readVector();
let alice;
let keys;

before(async () => {
    alice = await vectorParty(vector.sender);
    keys = SecretKeys.fromKeys(randomBytes(32), randomBytes(32));
});

/** A private record of alice's keys under `secret` at the floor cost, from keys derived once per process. */
async function sealRecord(secret, extra = {}) {
    const parameters = floorParameters;
    const derived = await derivedKeys(secret, parameters);
    const { identity, token } = alice;
    return PrivateRecord.sealWithKeys({ identity, token, keys: derived, parameters, ...extra });
}

/** A blob sealed with `keys` for alice's token around any plaintext, as a buggy or hostile client could make it. */
async function sealedAround(plaintext) {
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const aad = concatBytes(utf8('wots-private-keys-v1'), [0], alice.token.bytes);
    return concatBytes([1], nonce, await sealAESGCM({ key: keys.encryptionKey, nonce, aad, plaintext }));
}

describe('sealed private keys', () => {
    test('follow the layout: 0x01, a fresh nonce, then GCM over both length-prefixed PKCS#8 keys', async () => {
        const first = await SealedPrivateKeys.seal(alice.identity, alice.token, keys);
        const second = await SealedPrivateKeys.seal(alice.identity, alice.token, keys);
        const signing = await alice.identity.signingPKCS8DER();
        const encryption = await alice.identity.encryptionPKCS8DER();
        assert.equal(first[0], 1);
        assert.equal(first.length, 1 + 12 + 2 + signing.length + 2 + encryption.length + 16);
        assert.notDeepEqual(first.subarray(1, 13), second.subarray(1, 13));
        assert.deepEqual(SealedPrivateKeys.label, concatBytes(utf8('wots-private-keys-v1'), [0]));
    });

    test('sealed here open in Python with SECURITY.md’s layout', { skip: pythonMissing }, async () => {
        const sealed = await SealedPrivateKeys.seal(alice.identity, alice.token, keys);
        const opened = pythonReference('open-private-keys', { sealed: toBase64(sealed), token: String(alice.token), encryptionKey: toBase64(keys.encryptionKey) });
        assert.deepEqual(opened.publicKeys, vector.sender.publicKeys);
        assert.equal(opened.signingPrivateKey, toBase64(await alice.identity.signingPKCS8DER()));
        const otherToken = pythonReference('open-private-keys', { sealed: toBase64(sealed), token: String(Token.random()), encryptionKey: toBase64(keys.encryptionKey) });
        assert.deepEqual(otherToken, { error: 'wrong_secret' }, 'Python refuses it under another token: the check can fail');
    });

    test('sealed in Python open here', { skip: pythonMissing }, async () => {
        const { sealed } = pythonReference('seal-private-keys', {
            token: vector.sender.token,
            encryptionKey: toBase64(keys.encryptionKey),
            signingPrivateKey: vector.sender.signingPrivateKey,
            encryptionPrivateKey: vector.sender.encryptionPrivateKey,
        });
        const identity = await SealedPrivateKeys.open(fromBase64(sealed), alice.token, keys);
        assert.deepEqual(identity.publicKeys.toJSON(), vector.sender.publicKeys);
        await rejectsWith(assert, identity.signingPKCS8DER(), CryptoError, 'invalid_key');
    });

    test('refuse another key, another token, or a changed byte → wrong_secret', async () => {
        const sealed = await SealedPrivateKeys.seal(alice.identity, alice.token, keys);
        const otherKeys = SecretKeys.fromKeys(crypto.getRandomValues(new Uint8Array(32)), keys.authenticationKey);
        await rejectsWith(assert, SealedPrivateKeys.open(sealed, alice.token, otherKeys), CryptoError, 'wrong_secret');
        await rejectsWith(assert, SealedPrivateKeys.open(sealed, Token.random(), keys), CryptoError, 'wrong_secret');
        for (const offset of [1, 12, 13, 200, sealed.length - 1]) {
            const changed = sealed.slice();
            changed[offset] ^= 0x80;
            await rejectsWith(assert, SealedPrivateKeys.open(changed, alice.token, keys), CryptoError, 'wrong_secret');
        }
    });

    test('refuse a damaged blob: version, size, contents', async () => {
        const sealed = await SealedPrivateKeys.seal(alice.identity, alice.token, keys);
        await rejectsWith(assert, SealedPrivateKeys.open(concatBytes([2], sealed.subarray(1)), alice.token, keys), CryptoError, 'unsupported_version');
        await rejectsWith(assert, SealedPrivateKeys.open(new Uint8Array(0), alice.token, keys), CryptoError, 'malformed');
        await rejectsWith(assert, SealedPrivateKeys.open(sealed.subarray(0, 28), alice.token, keys), CryptoError, 'malformed');
        const signing = await alice.identity.signingPKCS8DER();
        const oneKey = new ByteWriter().writeU16Prefixed(signing).bytes;
        await rejectsWith(assert, SealedPrivateKeys.open(await sealedAround(oneKey), alice.token, keys), CryptoError, 'malformed');
        const extra = concatBytes(new ByteWriter().writeU16Prefixed(signing).writeU16Prefixed(signing).bytes, [0]);
        await rejectsWith(assert, SealedPrivateKeys.open(await sealedAround(extra), alice.token, keys), CryptoError, 'malformed');
        const sameTwice = new ByteWriter().writeU16Prefixed(signing).writeU16Prefixed(signing).bytes;
        await rejectsWith(assert, SealedPrivateKeys.open(await sealedAround(sameTwice), alice.token, keys), CryptoError, 'invalid_key');
        const notKeys = new ByteWriter().writeU16Prefixed(utf8('nope')).writeU16Prefixed(utf8('nope')).bytes;
        await rejectsWith(assert, SealedPrivateKeys.open(await sealedAround(notKeys), alice.token, keys), CryptoError, 'invalid_key');
    });
});

describe('private records', () => {
    test('seal with a secret and open with the same secret, composed either way', async () => {
        const secret = 'Crème brûlée, s\u0301il vous plaît';
        const parameters = floorParameters;
        const record = await PrivateRecord.seal({ identity: alice.identity, token: alice.token, secret, parameters });
        const identity = await record.openIdentity(secret.normalize('NFD'));
        assert.ok(identity.fingerprint.equals(alice.identity.fingerprint));
        // Another secret's keys (derived once, shared with the tests below) are refused before the blob is opened.
        await rejectsWith(assert, record.openIdentityWithKeys(await derivedKeys('s')), CryptoError, 'wrong_secret');
    });

    test('sealed here open in Python from the secret alone (scrypt, restore public key as verifier, layout)', { skip: pythonMissing }, async () => {
        const secret = 'passphrase ✓ 秘密';
        const record = await sealRecord(secret);
        const json = record.toJSON();
        const derived = pythonReference('derive-secret', { secret, parameters: json.keyDerivation });
        assert.equal(derived.secretVerifier, json.secretVerifier);
        const opened = pythonReference('open-private-keys', { sealed: json.sealedPrivateKeys, token: json.token, encryptionKey: derived.encryptionKey });
        assert.deepEqual(opened.publicKeys, vector.sender.publicKeys);
    });

    test('sealed in Python from a secret open here', { skip: pythonMissing }, async () => {
        const secret = 'Ünïcødé secret';
        const parameters = floorParameters;
        const derived = pythonReference('derive-secret', { secret, parameters: parameters.toJSON() });
        const { sealed } = pythonReference('seal-private-keys', {
            token: vector.sender.token,
            encryptionKey: derived.encryptionKey,
            signingPrivateKey: vector.sender.signingPrivateKey,
            encryptionPrivateKey: vector.sender.encryptionPrivateKey,
        });
        const record = PrivateRecord.fromJSON({
            token: vector.sender.token,
            keyDerivation: parameters.toJSON(),
            sealedPrivateKeys: sealed,
            secretVerifier: derived.secretVerifier,
        });
        const identity = await record.openIdentity(secret);
        assert.deepEqual(identity.publicKeys.toJSON(), vector.sender.publicKeys);
    });

    test('check the verifier before opening, in constant time', async () => {
        const record = await sealRecord('s');
        const derived = await derivedKeys('s');
        assert.deepEqual(record.secretVerifier, await derived.secretVerifier());
        assert.ok(await record.verifies(derived.authenticationKey));
        assert.ok(!(await record.verifies(derived.encryptionKey)));
        record.secretVerifier = new Uint8Array(32);
        await rejectsWith(assert, record.openIdentityWithKeys(derived), CryptoError, 'wrong_secret');
    });

    test('round-trip through the relay’s JSON form, avatar included', async () => {
        const record = await sealRecord('s', { avatar: { preset: 'ox' } });
        const json = JSON.parse(JSON.stringify(record));
        assert.deepEqual(Object.keys(json).sort(), ['avatar', 'keyDerivation', 'sealedPrivateKeys', 'secretVerifier', 'token']);
        assert.deepEqual(PrivateRecord.fromJSON(json).toJSON(), json);
        assert.throws(() => PrivateRecord.fromJSON({ ...json, sealedPrivateKeys: '!' }), (error) => error.code === 'malformed');
    });

    test('refuse stored parameters below the floors or above the ceilings before any work → invalid_key_derivation', async () => {
        const record = await sealRecord('s');
        const { salt } = record.keyDerivation;
        for (const cost of [{ n: 2, r: 1, p: 1 }, { n: 2 ** 14, r: 8, p: 1 }, { n: 2 ** 20, r: 8, p: 1 }]) {
            record.keyDerivation = new KeyDerivationParameters({ salt, ...cost });
            await rejectsWith(assert, record.openIdentity('s'), CryptoError, 'invalid_key_derivation');
            const parameters = record.keyDerivation;
            await rejectsWith(assert, PrivateRecord.seal({ identity: alice.identity, token: alice.token, secret: 's', parameters }), CryptoError, 'invalid_key_derivation');
        }
    });
});
