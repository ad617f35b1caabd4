// Runs the crypto core in a real browser (headless Chromium, started by web/test/chromium.test.mjs) and posts
// the outcome of each check to the test server at /results. It covers what differs between engines: WebCrypto's
// RSA-PSS/OAEP, Ed25519, AES-GCM and PBKDF2 as the browser implements them, and the scrypt worker in a real
// DedicatedWorkerGlobalScope.

import { fromBase64, fromHex, toBase64, toHex, utf8 } from '../../js/crypto/bytes.js';
import { ed25519KeyFromSeed } from '../../js/crypto/ed25519.js';
import { Envelope } from '../../js/crypto/envelope.js';
import { openEnvelope, sealEnvelope } from '../../js/crypto/envelope-sealing.js';
import { safetyNumber } from '../../js/crypto/fingerprint.js';
import { IdentityKeys, PublicKeys } from '../../js/crypto/keys.js';
import { Nickname } from '../../js/crypto/nickname.js';
import { PrivateRecord } from '../../js/crypto/private-record.js';
import { RegistrationProof, RestoreProof } from '../../js/crypto/proofs.js';
import { importPublicKey } from '../../js/crypto/rsa.js';
import { scrypt } from '../../js/crypto/scrypt.js';
import { KeyDerivationParameters, SecretKeys } from '../../js/crypto/secret.js';
import { Token } from '../../js/crypto/token.js';
import { GroupEnvelope } from '../../js/crypto/group-envelope.js';
import { openGroupEnvelope } from '../../js/crypto/group-envelope-sealing.js';
import { GroupState } from '../../js/crypto/group-state.js';
import { LocalStore } from '../../js/storage/local-store.js';

const results = [];
const facts = {};

function expect(condition, message) {
    if (!condition) throw new Error(message);
}

async function expectRefusal(promise, code) {
    try {
        await promise;
    } catch (error) {
        expect(error.code === code, `expected ${code}, got ${error.code}: ${error.message}`);
        return;
    }
    throw new Error(`expected ${code}, but it succeeded`);
}

async function check(name, body) {
    try {
        await body();
        results.push({ name, ok: true });
    } catch (error) {
        results.push({ name, ok: false, error: `${error.name}: ${error.message}` });
    }
}

async function party(json) {
    const pkcs8 = { signing: fromBase64(json.signingPrivateKey), encryption: fromBase64(json.encryptionPrivateKey) };
    return { token: Token.parse(json.token), identity: await IdentityKeys.fromPKCS8(pkcs8) };
}

const rfcVectors = [
    ['', '', 16, 1, 1, '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906'],
    ['password', 'NaCl', 1024, 8, 16, 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640'],
    ['pleaseletmein', 'SodiumChloride', 16384, 8, 1, '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887'],
];

const checks = [
    ['scrypt: RFC 7914 vectors 1–3', async () => {
        for (const [password, salt, n, r, p, expected] of rfcVectors) {
            const output = await scrypt({ password: utf8(password), salt: utf8(salt), n, r, p, length: 64 });
            expect(toHex(output) === expected, `N=${n} gives ${toHex(output)}`);
        }
    }],

    ['the committed envelope vector opens to its plaintext', async ({ vector, bob, alicePublic, bobPublic }) => {
        const envelope = Envelope.fromSerialized(fromBase64(vector.serialized));
        const opener = { recipient: bob.token, identity: bob.identity, senderKeys: alicePublic };
        const opened = await openEnvelope(envelope, opener);
        expect(opened.text === vector.plaintext, 'plaintext differs');
        expect(JSON.stringify(Envelope.fromJSON(vector.envelope).toJSON()) === JSON.stringify(envelope.toJSON()), 'JSON form');
        expect((await safetyNumber(alicePublic, bobPublic)) === vector.safetyNumber, 'safety number differs');
    }],

    ['an envelope sealed here opens here, and tampering is refused', async ({ alice, bob, alicePublic, bobPublic }) => {
        const plaintext = utf8('sealed in the browser ✓');
        const from = { sender: alice.token, identity: alice.identity };
        const envelope = await sealEnvelope({ ...from, plaintext, recipient: bob.token, recipientKeys: bobPublic });
        facts.sealedForBob = toBase64(envelope.serialized);
        const opener = { recipient: bob.token, identity: bob.identity, senderKeys: alicePublic };
        expect((await openEnvelope(envelope, opener)).text === 'sealed in the browser ✓', 'round trip');
        const tampered = Envelope.fromSerialized(envelope.serialized);
        tampered.signature[10] ^= 1;
        await expectRefusal(openEnvelope(tampered, opener), 'bad_signature');
        await expectRefusal(openEnvelope(envelope, { ...opener, identity: alice.identity }), 'not_for_me');
    }],

    ['fresh identity keys sign a registration proof that verifies', async () => {
        const identity = await IdentityKeys.generate();
        const token = Token.random();
        const nickname = new Nickname('Browser');
        const relayID = crypto.getRandomValues(new Uint8Array(16));
        const signature = await RegistrationProof.sign({ relayID, token, nickname, identity });
        const fields = { signature, relayID, token, nickname, publicKeys: identity.publicKeys };
        expect(await RegistrationProof.verify(fields), 'verify');
        expect(!(await RegistrationProof.verify({ ...fields, token: Token.random() })), 'other token');
        expect(!(await RegistrationProof.verify({ ...fields, relayID: new Uint8Array(16) })), 'other relay');
    }],

    ['the restore key (Ed25519 in WebCrypto) gives the RFC 8032 public key and a restore signature that verifies', async () => {
        const seed = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
        const { publicKey } = await ed25519KeyFromSeed(seed);
        expect(toHex(publicKey) === 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', `public key ${toHex(publicKey)}`);
        const keys = SecretKeys.fromKeys(new Uint8Array(32), crypto.getRandomValues(new Uint8Array(32)));
        const challenge = { relayID: new Uint8Array([1, 2]), nonce: new Uint8Array([3, 4]), nickname: new Nickname('Browser') };
        const signature = await keys.signRestore(challenge);
        const secretVerifier = await keys.secretVerifier();
        expect(await RestoreProof.verify({ ...challenge, signature, secretVerifier }), 'restore signature verifies');
        expect(!(await RestoreProof.verify({ ...challenge, nonce: new Uint8Array([5]), signature, secretVerifier })), 'other nonce');
    }],

    ['public keys with a trailing byte are refused', async ({ alicePublic }) => {
        const withTrailingByte = new Uint8Array([...alicePublic.signing, 0]);
        await expectRefusal(importPublicKey(withTrailingByte, 'signing'), 'invalid_key');
    }],

    ['a private record seals and opens (NFC), and refuses another secret', async ({ alice }) => {
        const parameters = KeyDerivationParameters.random({ n: 2 ** 15, r: 8, p: 1 });
        const identity = await IdentityKeys.generate();
        const record = await PrivateRecord.seal({ identity, token: alice.token, secret: 'Cafe\u0301', parameters });
        const opened = await record.openIdentity('Caf\u00e9');
        expect(opened.publicKeys.equals(identity.publicKeys), 'the opened keys are the sealed ones');
        await expectRefusal(record.openIdentity('Cafe'), 'wrong_secret');
    }],

    ['the scrypt worker runs as a module worker and reports progress, then the keys', async () => {
        const parameters = KeyDerivationParameters.random({ n: 2 ** 15, r: 8, p: 1 });
        const worker = new Worker(new URL('../../js/crypto/scrypt-worker.js', import.meta.url), { type: 'module' });
        const replies = [];
        await new Promise((resolve, reject) => {
            worker.addEventListener('error', (event) => reject(new Error(event.message)));
            worker.addEventListener('message', ({ data }) => {
                replies.push(data);
                if (data.type !== 'progress') resolve();
            });
            worker.postMessage({ id: 1, secret: 'worker ✓', parameters: parameters.toJSON() });
        });
        worker.terminate();
        const result = replies.at(-1);
        expect(result.type === 'result', `last reply is ${JSON.stringify(result)}`);
        const fractions = replies.filter((reply) => reply.type === 'progress').map((reply) => reply.fraction);
        expect(fractions[0] === 0 && fractions.at(-1) === 1 && fractions.length > 10, `progress ${fractions}`);
        const direct = await SecretKeys.derive('worker ✓', parameters);
        expect(toHex(result.secretVerifier) === toHex(await direct.secretVerifier()), 'worker and page derive the same keys');
    }],

    ['scrypt timing at N = 2^14 and 2^15 (informational)', async () => {
        facts.scryptMilliseconds = {};
        for (const logN of [14, 15]) {
            const times = [];
            for (let run = 0; run < 3; run++) {
                const begun = performance.now();
                await scrypt({ password: utf8('timing'), salt: new Uint8Array(16), n: 2 ** logN, r: 8, p: 1, length: 64 });
                times.push(performance.now() - begun);
            }
            facts.scryptMilliseconds[logN] = Math.round(Math.min(...times));
        }
    }],

    ['the committed group envelope vector opens here, and its state hash is rebuilt', async () => {
        const vector = await (await fetch('/schema/vectors/group-envelope-v1.json')).json();
        const sender = PublicKeys.fromJSON(vector.sender.publicKeys);
        const envelope = GroupEnvelope.fromSerialized(fromBase64(vector.serialized));
        for (const recipient of vector.recipients) {
            const { token, identity } = await party(recipient);
            const slot = fromBase64(vector.slots.find((entry) => entry.recipient === recipient.token).wrappedKey);
            const opened = await openGroupEnvelope(envelope, { slot, recipient: token, identity, senderKeys: sender });
            expect(new TextDecoder().decode(opened.plaintext) === vector.plaintext, `${recipient.nickname} reads another text`);
        }
        expect(toHex(await GroupState.fromJSON(vector.state).stateHash()) === vector.stateHash, 'state hash differs');
    }],

    ['IndexedDB: a version 2 database upgrades to version 3, keeping its records and adding the group book', async () => {
        await LocalStore.forget(null);
        const old = await new Promise((resolve, reject) => {
            const open = indexedDB.open('wots', 2);
            open.onupgradeneeded = () => {
                const db = open.result;
                db.createObjectStore('account');
                db.createObjectStore('contacts', { keyPath: 'token' });
                const messages = db.createObjectStore('messages', { keyPath: 'key' });
                messages.createIndex('conversation', ['conversation', 'at']);
                messages.createIndex('expiresAt', 'expiresAt');
                db.createObjectStore('attachments');
            };
            open.onsuccess = () => resolve(open.result);
            open.onerror = () => reject(open.error);
        });
        await new Promise((resolve) => {
            const put = old.transaction('contacts', 'readwrite').objectStore('contacts').put({ token: 'kept', nickname: 'x' });
            put.onsuccess = resolve;
        });
        old.close();
        const store = await LocalStore.open();
        expect(store.database.version === 3, `version ${store.database.version}`);
        expect(store.database.objectStoreNames.contains('groups'), 'no groups store');
        expect((await store.contact('kept'))?.nickname === 'x', 'the contact kept before the upgrade is gone');
        await LocalStore.forget(store);
    }],

    ['WebCrypto PBKDF2 and a zero-length key (informational)', async () => {
        try {
            await crypto.subtle.importKey('raw', new Uint8Array(0), 'PBKDF2', false, ['deriveBits']);
            facts.emptyPBKDF2Key = 'accepted';
        } catch (error) {
            facts.emptyPBKDF2Key = `refused (${error.name})`;
        }
    }],
];

async function run() {
    const vector = await (await fetch('/schema/vectors/envelope-v1.json')).json();
    const [alice, bob] = await Promise.all([party(vector.sender), party(vector.recipient)]);
    const alicePublic = PublicKeys.fromJSON(vector.sender.publicKeys);
    const bobPublic = PublicKeys.fromJSON(vector.recipient.publicKeys);
    for (const [name, body] of checks) await check(name, () => body({ vector, alice, bob, alicePublic, bobPublic }));
}

const started = performance.now();
await run().catch((error) => results.push({ name: 'harness', ok: false, error: `${error.name}: ${error.message}` }));
facts.userAgent = navigator.userAgent;
facts.milliseconds = Math.round(performance.now() - started);
document.getElementById('status').textContent = 'done';
await fetch('/results', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ results, facts }) });
