import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { concatBytes, fromBase64, toBase64, utf8 } from '../js/crypto/bytes.js';
import { Nickname } from '../js/crypto/nickname.js';
import { AuthenticationProof, RegistrationProof, RotationProof } from '../js/crypto/proofs.js';
import { Token } from '../js/crypto/token.js';
import { newParty, pythonMissing, pythonReference, readVector, vectorParty } from '../testing/tools.mjs';

const vector = readVector();
const u16 = (count) => [count >> 8, count & 0xff];
let alice;
let fresh;

before(async () => {
    [alice, fresh] = await Promise.all([vectorParty(vector.sender), newParty()]);
});

describe('login bytes (AuthenticationProof)', () => {
    const relayID = Uint8Array.from({ length: 16 }, (_, i) => i);
    const nonce = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);

    test('are "wots-auth-v1" 0x00 u16-bytes(relayID) u16-bytes(nonce) token(16)', () => {
        const expected = concatBytes(utf8('wots-auth-v1'), [0], u16(16), relayID, u16(32), nonce, alice.token.bytes);
        assert.deepEqual(AuthenticationProof.signedBytes({ relayID, nonce, token: alice.token }), expected);
    });

    test('are the bytes Python builds, and signatures cross both ways', { skip: pythonMissing }, async () => {
        const fields = { relayID: toBase64(relayID), nonce: toBase64(nonce), token: vector.sender.token };
        const reference = pythonReference('signed-bytes', { kind: 'login', ...fields });
        assert.equal(toBase64(AuthenticationProof.signedBytes({ relayID, nonce, token: alice.token })), reference.bytes);
        const ours = await AuthenticationProof.sign({ relayID, nonce, token: alice.token, identity: alice.identity });
        const check = (signature, extra = {}) => pythonReference('verify', { kind: 'login', ...fields, signingPublicKey: vector.sender.publicKeys.signing, signature: toBase64(signature), ...extra });
        assert.deepEqual(check(ours), { valid: true });
        assert.deepEqual(check(ours, { nonce: toBase64(relayID) }), { valid: false }, 'Python refuses it for another nonce');
        const theirs = fromBase64(pythonReference('sign', { kind: 'login', ...fields, signingPrivateKey: vector.sender.signingPrivateKey }).signature);
        assert.ok(await AuthenticationProof.verify({ signature: theirs, relayID, nonce, token: alice.token, publicKeys: alice.publicKeys }));
    });

    test('do not verify for another relay, nonce, token or key', async () => {
        const signature = await AuthenticationProof.sign({ relayID, nonce, token: alice.token, identity: alice.identity });
        const verify = (changes) => AuthenticationProof.verify({ signature, relayID, nonce, token: alice.token, publicKeys: alice.publicKeys, ...changes });
        assert.ok(await verify({}));
        assert.ok(!(await verify({ relayID: nonce })));
        assert.ok(!(await verify({ nonce: relayID })));
        assert.ok(!(await verify({ token: Token.random() })));
        assert.ok(!(await verify({ publicKeys: fresh.identity.publicKeys })));
        assert.ok(!(await verify({ relayID: new Uint8Array(0) })));
    });

    test('need a relay id and nonce of 1–65,535 bytes', () => {
        for (const [relay, challenge] of [[new Uint8Array(0), nonce], [relayID, new Uint8Array(0)], [new Uint8Array(65536), nonce]]) {
            assert.throws(() => AuthenticationProof.signedBytes({ relayID: relay, nonce: challenge, token: alice.token }), (error) => error.code === 'malformed');
        }
        assert.equal(AuthenticationProof.signedBytes({ relayID: new Uint8Array(65535), nonce, token: alice.token }).length, 13 + 2 + 65535 + 2 + 32 + 16);
    });
});

describe('registration proof', () => {
    const nickname = new Nickname('Alice');

    test('is "wots-register-v1" 0x00 token u16-bytes(lower-cased nickname) u16-bytes(signing SPKI) u16-bytes(encryption SPKI)', () => {
        const { signing, encryption } = alice.publicKeys;
        const expected = concatBytes(utf8('wots-register-v1'), [0], alice.token.bytes, u16(5), utf8('alice'), u16(294), signing, u16(294), encryption);
        assert.deepEqual(RegistrationProof.signedBytes({ token: alice.token, nickname, publicKeys: alice.publicKeys }), expected);
    });

    test('is the bytes Python builds, and signatures cross both ways', { skip: pythonMissing }, async () => {
        const fields = { token: vector.sender.token, nickname: 'Alice', publicKeys: vector.sender.publicKeys };
        assert.equal(toBase64(RegistrationProof.signedBytes({ token: alice.token, nickname, publicKeys: alice.publicKeys })), pythonReference('signed-bytes', { kind: 'registration', ...fields }).bytes);
        const ours = await RegistrationProof.sign({ token: alice.token, nickname, identity: alice.identity });
        const check = (extra = {}) => pythonReference('verify', { kind: 'registration', ...fields, signingPublicKey: vector.sender.publicKeys.signing, signature: toBase64(ours), ...extra });
        assert.deepEqual(check(), { valid: true });
        assert.deepEqual(check({ nickname: 'mallory' }), { valid: false });
        const theirs = fromBase64(pythonReference('sign', { kind: 'registration', ...fields, signingPrivateKey: vector.sender.signingPrivateKey }).signature);
        assert.ok(await RegistrationProof.verify({ signature: theirs, token: alice.token, nickname, publicKeys: alice.publicKeys }));
    });

    test('does not verify for another nickname, token or key set, nor as a login signature', async () => {
        const signature = await RegistrationProof.sign({ token: alice.token, nickname, identity: alice.identity });
        const verify = (changes) => RegistrationProof.verify({ signature, token: alice.token, nickname, publicKeys: alice.publicKeys, ...changes });
        assert.ok(await verify({}));
        assert.ok(!(await verify({ nickname: new Nickname('alicia') })));
        assert.ok(!(await verify({ token: Token.random() })));
        assert.ok(!(await verify({ publicKeys: fresh.identity.publicKeys })));
        const login = await AuthenticationProof.sign({ relayID: new Uint8Array(16), nonce: new Uint8Array(32), token: alice.token, identity: alice.identity });
        assert.ok(!(await verify({ signature: login })), 'labels keep purposes apart');
    });
});

describe('rotation proof', () => {
    test('is "wots-rotate-v1" 0x00 token old-fingerprint(32) u16-bytes(new signing SPKI) u16-bytes(new encryption SPKI)', () => {
        const newKeys = fresh.identity.publicKeys;
        const expected = concatBytes(utf8('wots-rotate-v1'), [0], alice.token.bytes, alice.identity.fingerprint.bytes, u16(294), newKeys.signing, u16(294), newKeys.encryption);
        assert.deepEqual(RotationProof.signedBytes({ token: alice.token, oldFingerprint: alice.identity.fingerprint, newKeys }), expected);
    });

    test('is signed by both keys, verifiable in Python, and Python’s verifies here', { skip: pythonMissing }, async () => {
        const proof = await RotationProof.sign({ token: alice.token, oldIdentity: alice.identity, newIdentity: fresh.identity });
        const newKeys = fresh.identity.publicKeys.toJSON();
        const fields = { token: vector.sender.token, oldPublicKeys: vector.sender.publicKeys, newPublicKeys: newKeys };
        const expected = RotationProof.signedBytes({ token: alice.token, oldFingerprint: alice.identity.fingerprint, newKeys: fresh.identity.publicKeys });
        assert.equal(toBase64(expected), pythonReference('signed-bytes', { kind: 'rotation', ...fields }).bytes);
        const check = (signature, key) => pythonReference('verify', { kind: 'rotation', ...fields, signingPublicKey: key, signature: toBase64(signature) });
        assert.deepEqual(check(proof.oldKeySignature, vector.sender.publicKeys.signing), { valid: true });
        assert.deepEqual(check(proof.newKeySignature, newKeys.signing), { valid: true });
        assert.deepEqual(check(proof.newKeySignature, vector.sender.publicKeys.signing), { valid: false });
        const oldKeySignature = fromBase64(pythonReference('sign', { kind: 'rotation', ...fields, signingPrivateKey: vector.sender.signingPrivateKey }).signature);
        const mixed = new RotationProof({ oldKeySignature, newKeySignature: proof.newKeySignature });
        assert.ok(await mixed.verify({ token: alice.token, oldKeys: alice.publicKeys, newKeys: fresh.identity.publicKeys }));
    });

    test('needs both signatures, over this token and these keys', async () => {
        const proof = await RotationProof.sign({ token: alice.token, oldIdentity: alice.identity, newIdentity: fresh.identity });
        const verify = (candidate, changes = {}) => candidate.verify({ token: alice.token, oldKeys: alice.publicKeys, newKeys: fresh.identity.publicKeys, ...changes });
        assert.ok(await verify(proof));
        assert.ok(!(await verify(new RotationProof({ oldKeySignature: proof.newKeySignature, newKeySignature: proof.newKeySignature }))));
        assert.ok(!(await verify(new RotationProof({ oldKeySignature: proof.oldKeySignature, newKeySignature: proof.oldKeySignature }))));
        assert.ok(!(await verify(proof, { token: Token.random() })));
        assert.ok(!(await verify(proof, { newKeys: alice.publicKeys })));
        assert.deepEqual(RotationProof.fromJSON(JSON.parse(JSON.stringify(proof))), proof);
    });
});
