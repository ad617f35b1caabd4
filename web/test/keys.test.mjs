import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { before, describe, test } from 'node:test';

import { concatBytes, fromBase64, toBase64 } from '../js/crypto/bytes.js';
import { CryptoError } from '../js/crypto/errors.js';
import { IdentityKeys, ParsedPublicKeys, PublicKeys } from '../js/crypto/keys.js';
import { rsaPublicNumbers } from '../js/crypto/pkcs8.js';
import { encryptOAEP, importPublicKey, signPSS, verifyPSS } from '../js/crypto/rsa.js';
import { opensslMissing, pythonMissing, pythonReference, readVector, rejectsWith } from '../testing/tools.mjs';

/** The two PKCS#8 private keys of a vector party or a Python-made identity. */
function pkcs8Of({ signingPrivateKey, encryptionPrivateKey }) {
    return { signing: fromBase64(signingPrivateKey), encryption: fromBase64(encryptionPrivateKey) };
}

/** A public key made by OpenSSL's command line: `openssl genpkey ARGS | openssl pkey -pubout -outform DER`. */
function opensslPublicKey(...genpkeyArgs) {
    const quiet = { stdio: ['pipe', 'pipe', 'ignore'] };
    const pem = execFileSync('openssl', ['genpkey', ...genpkeyArgs], quiet);
    return Uint8Array.from(execFileSync('openssl', ['pkey', '-pubout', '-outform', 'DER'], { ...quiet, input: pem }));
}

describe('identity keys', () => {
    let generated;
    before(async () => {
        generated = await IdentityKeys.generate();
    });

    test('are two RSA-2048 key pairs whose public keys pass validation', async () => {
        const { signing, encryption } = generated.publicKeys;
        assert.equal(signing.length, 294);
        assert.equal(encryption.length, 294);
        assert.notDeepEqual(signing, encryption);
        const parsed = await ParsedPublicKeys.parse(generated.publicKeys);
        assert.ok(parsed.fingerprint.equals(generated.fingerprint));
        assert.equal(parsed.signing.algorithm.name, 'RSA-PSS');
        assert.equal(parsed.encryption.algorithm.name, 'RSA-OAEP');
    });

    test('sign with RSA-PSS salt 32 and decrypt RSA-OAEP SHA-256', async () => {
        const parsed = await ParsedPublicKeys.parse(generated.publicKeys);
        const message = new TextEncoder().encode('message');
        const signature = await generated.sign(message);
        assert.equal(signature.length, 256);
        assert.ok(await verifyPSS(parsed.signing, signature, message));
        assert.ok(!(await verifyPSS(parsed.signing, signature, concatBytes(message, [0]))));
        const secret = crypto.getRandomValues(new Uint8Array(32));
        assert.deepEqual(await generated.decrypt(await encryptOAEP(parsed.encryption, secret)), secret);
    });

    test('never describe their key material', () => {
        assert.match(String(generated), /^IdentityKeys\(RSA-2048 ×2, fingerprint [0-9a-f]{4}( [0-9a-f]{4}){15}\)$/);
        assert.equal(JSON.stringify({ generated }), `{"generated":"${generated}"}`);
    });

    test('round-trip through PKCS#8, and opened keys stay inside WebCrypto by default', async () => {
        const pkcs8 = { signing: await generated.signingPKCS8DER(), encryption: await generated.encryptionPKCS8DER() };
        const reopened = await IdentityKeys.fromPKCS8(pkcs8);
        assert.ok(reopened.publicKeys.equals(generated.publicKeys));
        assert.ok(reopened.fingerprint.equals(generated.fingerprint));
        await rejectsWith(assert, reopened.signingPKCS8DER(), CryptoError, 'invalid_key');
    });

    test('read the vector’s PKCS#8 private keys and find its published public keys', async () => {
        const vector = readVector();
        for (const party of [vector.sender, vector.recipient]) {
            const identity = await IdentityKeys.fromPKCS8(pkcs8Of(party));
            assert.deepEqual(identity.publicKeys.toJSON(), party.publicKeys);
            assert.equal(identity.fingerprint.hex, party.fingerprint);
        }
    });

    test('made here are read by Python, and Python’s are read here', { skip: pythonMissing }, async () => {
        const ours = {
            signingPrivateKey: toBase64(await generated.signingPKCS8DER()),
            encryptionPrivateKey: toBase64(await generated.encryptionPKCS8DER()),
        };
        assert.deepEqual(pythonReference('public-keys-of', ours), generated.publicKeys.toJSON());
        const theirs = pythonReference('generate-identity', {});
        const identity = await IdentityKeys.fromPKCS8(pkcs8Of(theirs));
        assert.deepEqual(identity.publicKeys.toJSON(), theirs.publicKeys);
    });

    test('refuse one key used as both signing and encryption key', async () => {
        const pkcs8 = await generated.signingPKCS8DER();
        await rejectsWith(assert, IdentityKeys.fromPKCS8({ signing: pkcs8, encryption: pkcs8 }), CryptoError, 'invalid_key');
        const { signing } = generated.publicKeys;
        const same = new PublicKeys({ signing, encryption: signing });
        await rejectsWith(assert, ParsedPublicKeys.parse(same), CryptoError, 'invalid_key');
    });

    test('rebuild public keys from PKCS#8 without exporting the private key', async () => {
        const vector = readVector();
        const pkcs8 = fromBase64(vector.recipient.encryptionPrivateKey);
        const { modulus, exponent } = rsaPublicNumbers(pkcs8);
        assert.equal(modulus.length, 256);
        assert.ok(modulus[0] & 0x80, 'a 2048-bit modulus, leading zero byte removed');
        assert.deepEqual(exponent, Uint8Array.from([1, 0, 1]));
        for (const length of [0, 1, 10, 26, 30]) {
            assert.throws(() => rsaPublicNumbers(pkcs8.subarray(0, length)), (error) => error.code === 'invalid_key');
        }
        assert.throws(() => rsaPublicNumbers(fromBase64(vector.recipient.publicKeys.encryption)), (error) => error.code === 'invalid_key');
    });

    test('refuse private keys that are not PKCS#8 RSA', async () => {
        await rejectsWith(assert, IdentityKeys.fromPKCS8({ signing: new Uint8Array(10), encryption: new Uint8Array(10) }), CryptoError, 'invalid_key');
    });
});

describe('public keys from others', () => {
    let valid;
    before(async () => {
        valid = PublicKeys.fromJSON(readVector().sender.publicKeys).signing;
    });

    const refuses = async (spki, pattern) => {
        await assert.rejects(importPublicKey(spki, 'signing'), (error) => error instanceof CryptoError && error.code === 'invalid_key' && pattern.test(error.message));
    };

    test('are accepted as canonical RSA-2048 SPKI DER with e = 65537', async () => {
        const key = await importPublicKey(valid, 'signing');
        assert.equal(key.algorithm.modulusLength, 2048);
    });

    test('are refused with a trailing byte, a long-form length, or nothing at all', async () => {
        await refuses(concatBytes(valid, [0]), /295 bytes/);
        const longForm = concatBytes([0x30, 0x83, 0x00], valid.subarray(2));
        await refuses(longForm, /295 bytes/);
        await refuses(new Uint8Array(0), /0 bytes/);
        const garbage = valid.slice();
        garbage[40] ^= 0xff;
        garbage[30] = 0x05;
        await refuses(garbage, /not a DER SubjectPublicKeyInfo|canonical/);
    });

    test('are refused when not rsaEncryption, not 2048 bits, or e ≠ 65537', { skip: opensslMissing }, async () => {
        await refuses(opensslPublicKey('-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'), /162 bytes/);
        await refuses(opensslPublicKey('-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072'), /422 bytes/);
        await refuses(opensslPublicKey('-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048'), /292 bytes/);
        const pssIdentifier = valid.slice();
        pssIdentifier[16] = 0x0a; // 1.2.840.113549.1.1.10, id-RSASSA-PSS, in place of rsaEncryption
        await refuses(pssIdentifier, /not a DER rsaEncryption/);
        await refuses(opensslPublicKey('-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'), /91 bytes/);
        const smallExponent = opensslPublicKey('-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-pkeyopt', 'rsa_keygen_pubexp:3');
        assert.equal(smallExponent.length, 292, 'e = 3 is two bytes shorter than e = 65537');
        await refuses(smallExponent, /292 bytes/);
    });

    test('with a three-byte exponent other than 65537 are refused at the canonical size', { skip: opensslMissing }, async () => {
        // The 24-byte prefix and the 294-byte size cannot tell e = 65539 (or a padded 3) from 65537; the exponent
        // check does.
        const shortExponent = opensslPublicKey('-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-pkeyopt', 'rsa_keygen_pubexp:3');
        const modulus = shortExponent.subarray(28, 28 + 4 + 257);
        for (const exponent of [[0x00, 0x00, 0x03], [0x01, 0x00, 0x03]]) {
            const sequence = [0x30, 0x82, 0x01, 0x0a];
            const padded = concatBytes(valid.subarray(0, 24), sequence, modulus, [0x02, 0x03], exponent);
            assert.equal(padded.length, 294);
            await refuses(padded, /exponent other than 65537/);
        }
    });

    test('are refused for signatures of the wrong length without an exception', async () => {
        const key = await importPublicKey(valid, 'signing');
        assert.equal(await verifyPSS(key, new Uint8Array(255), new Uint8Array(1)), false);
        assert.equal(await verifyPSS(key, 'not bytes', new Uint8Array(1)), false);
    });

    test('sign and verify in one WebCrypto call each (no pre-hashing)', async () => {
        const { privateKey, publicKey } = await crypto.subtle.generateKey(
            { name: 'RSA-PSS', hash: 'SHA-256', modulusLength: 2048, publicExponent: Uint8Array.from([1, 0, 1]) },
            false,
            ['sign', 'verify'],
        );
        const message = new Uint8Array(100_000);
        assert.ok(await verifyPSS(publicKey, await signPSS(privateKey, message), message));
    });
});
