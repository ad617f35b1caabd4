import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { concatBytes, fromBase64, toBase64, utf8 } from '../js/crypto/bytes.js';
import { Nickname } from '../js/crypto/nickname.js';
import { AuthenticationProof, DeletionProof, RegistrationProof, RestoreProof, RotationProof } from '../js/crypto/proofs.js';
import { Token } from '../js/crypto/token.js';
import { newParty, pythonMissing, pythonReference, readVector, vectorParty } from '../testing/tools.mjs';

const vector = readVector();
const u16 = (count) => [count >> 8, count & 0xff];
let alice;
let fresh;

before(async () => {
    [alice, fresh] = await Promise.all([vectorParty(vector.sender), newParty()]);
});

/** Python's signature (vector sender's key) over the bytes it builds itself for `kind` from `fields`. */
function pythonSignature(kind, fields) {
    const request = { kind, ...fields, signingPrivateKey: vector.sender.signingPrivateKey };
    return fromBase64(pythonReference('sign', request).signature);
}

/** Whether Python verifies `signature` under `signingPublicKey` (base64 SPKI) over the bytes it builds itself. */
function pythonVerifies(kind, fields, signature, signingPublicKey = vector.sender.publicKeys.signing) {
    const request = { kind, ...fields, signingPublicKey, signature: toBase64(signature) };
    return pythonReference('verify', request).valid;
}

/** The bytes Python builds for `kind` from `fields`, base64. */
function pythonBytes(kind, fields) {
    return pythonReference('signed-bytes', { kind, ...fields }).bytes;
}

describe('login bytes (AuthenticationProof)', () => {
    const relayID = Uint8Array.from({ length: 16 }, (_, i) => i);
    const nonce = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const login = () => ({ relayID, nonce, token: alice.token });

    test('are "wots-auth-v1" 0x00 u16-bytes(relayID) u16-bytes(nonce) token(16)', () => {
        const expected = concatBytes(utf8('wots-auth-v1'), [0], u16(16), relayID, u16(32), nonce, alice.token.bytes);
        assert.deepEqual(AuthenticationProof.signedBytes(login()), expected);
    });

    test('are the bytes Python builds, and signatures cross both ways', { skip: pythonMissing }, async () => {
        const fields = { relayID: toBase64(relayID), nonce: toBase64(nonce), token: vector.sender.token };
        assert.equal(toBase64(AuthenticationProof.signedBytes(login())), pythonBytes('login', fields));
        const ours = await AuthenticationProof.sign({ ...login(), identity: alice.identity });
        assert.equal(pythonVerifies('login', fields, ours), true);
        assert.equal(pythonVerifies('login', { ...fields, nonce: toBase64(relayID) }, ours), false, 'another nonce');
        const theirs = pythonSignature('login', fields);
        assert.ok(await AuthenticationProof.verify({ ...login(), signature: theirs, publicKeys: alice.publicKeys }));
    });

    test('do not verify for another relay, nonce, token or key', async () => {
        const signature = await AuthenticationProof.sign({ ...login(), identity: alice.identity });
        const verify = (changes) =>
            AuthenticationProof.verify({ ...login(), signature, publicKeys: alice.publicKeys, ...changes });
        assert.ok(await verify({}));
        assert.ok(!(await verify({ relayID: nonce })));
        assert.ok(!(await verify({ nonce: relayID })));
        assert.ok(!(await verify({ token: Token.random() })));
        assert.ok(!(await verify({ publicKeys: fresh.identity.publicKeys })));
        assert.ok(!(await verify({ relayID: new Uint8Array(0) })));
    });

    test('need a relay id and nonce of 1–65,535 bytes', () => {
        const empty = new Uint8Array(0);
        const refused = [{ relayID: empty }, { nonce: empty }, { relayID: new Uint8Array(65536) }];
        for (const change of refused) {
            assert.throws(() => AuthenticationProof.signedBytes({ ...login(), ...change }), (error) => error.code === 'malformed');
        }
        const longest = AuthenticationProof.signedBytes({ ...login(), relayID: new Uint8Array(65535) });
        assert.equal(longest.length, 13 + 2 + 65535 + 2 + 32 + 16);
    });
});

describe('deletion statement (DeletionProof)', () => {
    const relayID = Uint8Array.from({ length: 16 }, (_, i) => 100 + i);
    const nonce = Uint8Array.from({ length: 32 }, (_, i) => i * 3);
    const deletion = () => ({ relayID, nonce, token: alice.token });

    test('is "wots-delete-v1" 0x00 u16-bytes(relayID) u16-bytes(nonce) token(16)', () => {
        const expected = concatBytes(utf8('wots-delete-v1'), [0], u16(16), relayID, u16(32), nonce, alice.token.bytes);
        assert.deepEqual(DeletionProof.signedBytes(deletion()), expected);
    });

    test('is the bytes Python builds, and signatures cross both ways', { skip: pythonMissing }, async () => {
        const fields = { relayID: toBase64(relayID), nonce: toBase64(nonce), token: vector.sender.token };
        assert.equal(toBase64(DeletionProof.signedBytes(deletion())), pythonBytes('deletion', fields));
        const ours = await DeletionProof.sign({ ...deletion(), identity: alice.identity });
        assert.equal(pythonVerifies('deletion', fields, ours), true);
        assert.equal(pythonVerifies('login', fields, ours), false, 'not a login signature');
        const theirs = pythonSignature('deletion', fields);
        assert.ok(await DeletionProof.verify({ ...deletion(), signature: theirs, publicKeys: alice.publicKeys }));
    });

    test('does not verify for another relay, nonce, token or key, nor as a login with the same fields', async () => {
        const signature = await DeletionProof.sign({ ...deletion(), identity: alice.identity });
        const publicKeys = alice.publicKeys;
        const verify = (changes) => DeletionProof.verify({ ...deletion(), signature, publicKeys, ...changes });
        assert.ok(await verify({}));
        assert.ok(!(await verify({ relayID: nonce })));
        assert.ok(!(await verify({ nonce: relayID })));
        assert.ok(!(await verify({ token: Token.random() })));
        assert.ok(!(await verify({ publicKeys: fresh.identity.publicKeys })));
        assert.ok(!(await verify({ nonce: new Uint8Array(0) })));
        assert.ok(!(await AuthenticationProof.verify({ ...deletion(), signature, publicKeys: alice.publicKeys })));
        const login = await AuthenticationProof.sign({ ...deletion(), identity: alice.identity });
        assert.ok(!(await verify({ signature: login })), 'a login answer to the same nonce deletes nothing');
    });

    test('needs a relay id and nonce of 1–65,535 bytes', () => {
        const empty = new Uint8Array(0);
        const refused = [{ relayID: empty }, { nonce: empty }, { relayID: new Uint8Array(65536) }];
        for (const change of refused) {
            assert.throws(() => DeletionProof.signedBytes({ ...deletion(), ...change }), (error) => error.code === 'malformed');
        }
    });
});

describe('challenge labels', () => {
    test('keep login, restore and deletion apart: same relay and nonce, different bytes from the first byte on', () => {
        const fields = { relayID: new Uint8Array([1]), nonce: new Uint8Array([2]) };
        const labels = [AuthenticationProof.label, RestoreProof.label, DeletionProof.label, RegistrationProof.label];
        assert.deepEqual(labels.map((bytes) => new TextDecoder().decode(bytes)), ['wots-auth-v1\0', 'wots-restore-v1\0', 'wots-delete-v1\0', 'wots-register-v2\0']);
        const login = AuthenticationProof.signedBytes({ ...fields, token: alice.token });
        const deletion = DeletionProof.signedBytes({ ...fields, token: alice.token });
        assert.notDeepEqual(login, deletion);
        assert.deepEqual(login.subarray(13), deletion.subarray(15), 'only the label differs');
    });
});

describe('registration proof (v2)', () => {
    const nickname = new Nickname('Alice');
    const relayID = Uint8Array.from({ length: 16 }, (_, i) => 0x40 + i);
    const registration = () => ({ relayID, token: alice.token, nickname, publicKeys: alice.publicKeys });

    test('is label, u16-bytes(relayID), token, u16-bytes(lower-cased nickname), u16-bytes(signing SPKI), u16-bytes(encryption SPKI)', () => {
        const { signing, encryption } = alice.publicKeys;
        const label = concatBytes(utf8('wots-register-v2'), [0]);
        const expected = concatBytes(label, u16(16), relayID, alice.token.bytes, u16(5), utf8('alice'), u16(294), signing, u16(294), encryption);
        assert.deepEqual(RegistrationProof.signedBytes(registration()), expected);
    });

    test('is the bytes Python builds, and signatures cross both ways', { skip: pythonMissing }, async () => {
        const fields = { relayID: toBase64(relayID), token: vector.sender.token, nickname: 'Alice', publicKeys: vector.sender.publicKeys };
        assert.equal(toBase64(RegistrationProof.signedBytes(registration())), pythonBytes('registration', fields));
        const ours = await RegistrationProof.sign({ relayID, token: alice.token, nickname, identity: alice.identity });
        assert.equal(pythonVerifies('registration', fields, ours), true);
        assert.equal(pythonVerifies('registration', { ...fields, nickname: 'mallory' }, ours), false);
        assert.equal(pythonVerifies('registration', { ...fields, relayID: toBase64(new Uint8Array(16)) }, ours), false, 'another relay');
        const theirs = pythonSignature('registration', fields);
        assert.ok(await RegistrationProof.verify({ ...registration(), signature: theirs }));
    });

    test('does not verify at another relay, for another nickname, token or key set, nor as a login signature', async () => {
        const { token, identity } = alice;
        const signature = await RegistrationProof.sign({ relayID, token, nickname, identity });
        const verify = (changes) => RegistrationProof.verify({ ...registration(), signature, ...changes });
        assert.ok(await verify({}));
        assert.ok(!(await verify({ relayID: new Uint8Array(16) })));
        assert.ok(!(await verify({ relayID: new Uint8Array(0) })));
        assert.ok(!(await verify({ nickname: new Nickname('alicia') })));
        assert.ok(!(await verify({ token: Token.random() })));
        assert.ok(!(await verify({ publicKeys: fresh.identity.publicKeys })));
        const challenge = { relayID: new Uint8Array(16), nonce: new Uint8Array(32), token: alice.token };
        const login = await AuthenticationProof.sign({ ...challenge, identity: alice.identity });
        assert.ok(!(await verify({ signature: login })), 'labels keep purposes apart');
    });

    test('needs a relay id of 1–65,535 bytes', () => {
        for (const change of [{ relayID: new Uint8Array(0) }, { relayID: new Uint8Array(65536) }]) {
            assert.throws(() => RegistrationProof.signedBytes({ ...registration(), ...change }), (error) => error.code === 'malformed');
        }
    });
});

describe('rotation proof', () => {
    const rotation = () => ({
        token: alice.token,
        oldFingerprint: alice.identity.fingerprint,
        newKeys: fresh.identity.publicKeys,
    });
    const signRotation = () =>
        RotationProof.sign({ token: alice.token, oldIdentity: alice.identity, newIdentity: fresh.identity });

    test('is label, token, old fingerprint(32), u16-bytes(new signing SPKI), u16-bytes(new encryption SPKI)', () => {
        const { signing, encryption } = fresh.identity.publicKeys;
        const label = concatBytes(utf8('wots-rotate-v1'), [0]);
        const old = alice.identity.fingerprint.bytes;
        const expected = concatBytes(label, alice.token.bytes, old, u16(294), signing, u16(294), encryption);
        assert.deepEqual(RotationProof.signedBytes(rotation()), expected);
    });

    test('is signed by both keys, verifiable in Python, and Python’s verifies here', { skip: pythonMissing }, async () => {
        const proof = await signRotation();
        const newKeys = fresh.identity.publicKeys.toJSON();
        const fields = { token: vector.sender.token, oldPublicKeys: vector.sender.publicKeys, newPublicKeys: newKeys };
        assert.equal(toBase64(RotationProof.signedBytes(rotation())), pythonBytes('rotation', fields));
        assert.equal(pythonVerifies('rotation', fields, proof.oldKeySignature), true);
        assert.equal(pythonVerifies('rotation', fields, proof.newKeySignature, newKeys.signing), true);
        assert.equal(pythonVerifies('rotation', fields, proof.newKeySignature), false, 'not the old key’s signature');
        const oldKeySignature = pythonSignature('rotation', fields);
        const mixed = new RotationProof({ oldKeySignature, newKeySignature: proof.newKeySignature });
        const keys = { token: alice.token, oldKeys: alice.publicKeys, newKeys: fresh.identity.publicKeys };
        assert.ok(await mixed.verify(keys));
    });

    test('needs both signatures, over this token and these keys', async () => {
        const proof = await signRotation();
        const keys = { token: alice.token, oldKeys: alice.publicKeys, newKeys: fresh.identity.publicKeys };
        const verify = (candidate, changes = {}) => candidate.verify({ ...keys, ...changes });
        const { oldKeySignature, newKeySignature } = proof;
        assert.ok(await verify(proof));
        assert.ok(!(await verify(new RotationProof({ oldKeySignature: newKeySignature, newKeySignature }))));
        assert.ok(!(await verify(new RotationProof({ oldKeySignature, newKeySignature: oldKeySignature }))));
        assert.ok(!(await verify(proof, { token: Token.random() })));
        assert.ok(!(await verify(proof, { newKeys: alice.publicKeys })));
        assert.deepEqual(RotationProof.fromJSON(JSON.parse(JSON.stringify(proof))), proof);
    });
});
