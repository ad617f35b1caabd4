// Shared test helpers: the repository's files, the independent Python reference, OpenSSL, and fixtures.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { fromBase64 } from '../js/crypto/bytes.js';
import { IdentityKeys, PublicKeys } from '../js/crypto/keys.js';
import { KeyDerivationParameters, SecretKeys } from '../js/crypto/secret.js';
import { Token } from '../js/crypto/token.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const referenceScript = join(repositoryRoot, 'web/testing/wots_reference.py');

function works(command, args) {
    const result = spawnSync(command, args, { stdio: 'ignore' });
    return result.status === 0;
}

/** false when Python 3 with `cryptography` is here, else the reason a test that needs it is skipped. */
export const pythonMissing = works('python3', ['-c', 'import cryptography'])
    ? false
    : 'python3 with the cryptography package is not installed (CI machines have it)';

/** false when the OpenSSL 3 command line is here, else the reason a test that needs it is skipped. */
export const opensslMissing = works('openssl', ['kdf', '-keylen', '16', '-kdfopt', 'pass:x', '-kdfopt', 'salt:y', '-kdfopt', 'n:2', '-kdfopt', 'r:1', '-kdfopt', 'p:1', 'SCRYPT'])
    ? false
    : 'the openssl 3 command line (openssl kdf … SCRYPT) is not installed (CI machines have it)';

/** Runs one command of web/testing/wots_reference.py with a JSON request; returns its JSON answer. */
export function pythonReference(command, request) {
    const output = execFileSync('python3', [referenceScript, command], { input: JSON.stringify(request), encoding: 'utf8' });
    return JSON.parse(output);
}

/**
 * Runs scripts/check_envelope_vector.py (or `script`, e.g. check_group_envelope_vector.py) on a vector object; returns
 * {ok, output}. Those scripts open the envelope with Python's `cryptography` following SECURITY.md, independently of
 * this code.
 */
export function checkWithVectorScript(vector, script = 'check_envelope_vector.py') {
    const vectorChecker = join(repositoryRoot, 'scripts', script);
    const folder = mkdtempSync(join(tmpdir(), 'wots-vector-'));
    try {
        const path = join(folder, 'vector.json');
        writeFileSync(path, JSON.stringify(vector));
        const result = spawnSync('python3', [vectorChecker, path], { encoding: 'utf8' });
        return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
    } finally {
        rmSync(folder, { recursive: true, force: true });
    }
}

/**
 * scrypt by OpenSSL's own command line (`openssl kdf … SCRYPT`). A string password or salt goes in as
 * `pass:`/`salt:` (its UTF-8 in argv, as a user would type it), bytes as `hexpass:`/`hexsalt:`.
 */
export function opensslScrypt({ password, salt, n, r, p, length }) {
    const option = (name, value) => (typeof value === 'string' ? `${name}:${value}` : `hex${name}:${Buffer.from(value).toString('hex')}`);
    const args = ['kdf', '-keylen', String(length), '-kdfopt', option('pass', password), '-kdfopt', option('salt', salt)];
    args.push('-kdfopt', `n:${n}`, '-kdfopt', `r:${r}`, '-kdfopt', `p:${p}`, '-kdfopt', 'maxmem_bytes:1100000000', 'SCRYPT');
    const output = execFileSync('openssl', args, { encoding: 'utf8' });
    return Uint8Array.from(Buffer.from(output.trim().replaceAll(':', ''), 'hex'));
}

/** The committed envelope test vector, parsed. */
/** A committed envelope vector: `schema/vectors/envelope-v1.json` unless another name is given. */
export function readVector(name = 'envelope-v1.json') {
    return JSON.parse(readFileSync(join(repositoryRoot, 'schema/vectors', name), 'utf8'));
}

/** A vector party (sender or recipient) as {token, identity, publicKeys}. */
export async function vectorParty(party) {
    const identity = await IdentityKeys.fromPKCS8(
        { signing: fromBase64(party.signingPrivateKey), encryption: fromBase64(party.encryptionPrivateKey) },
        { extractable: true },
    );
    return { token: Token.parse(party.token), identity, publicKeys: PublicKeys.fromJSON(party.publicKeys) };
}

/** A fresh identity with a random token; RSA generation costs about half a second, so files share theirs. */
export async function newParty() {
    return { token: Token.random(), identity: await IdentityKeys.generate() };
}

/** Asserts that `promise` rejects with an error of that class and code. */
export async function rejectsWith(assert, promise, errorClass, code) {
    await assert.rejects(promise, (error) => {
        assert.ok(error instanceof errorClass, `expected ${errorClass.name}, got ${error?.name}: ${error?.message}`);
        assert.equal(error.code, code, `expected code ${code}, got ${error.code}: ${error.message}`);
        return true;
    });
}

/** The cheapest scrypt cost accepted (N = 2^15, r = 8, p = 1): about 0.1–0.3 s a derivation here, so tests share. */
export const floorCost = Object.freeze({ n: 2 ** 15, r: 8, p: 1 });

/** One fixed set of floor-cost parameters per process, so `derivedKeys` can reuse what it derived. */
export const floorParameters = KeyDerivationParameters.random(floorCost);

const derivations = new Map();

/**
 * `SecretKeys.derive(secret, parameters)`, derived once per process for each secret and parameters. Callers must not
 * change the keys they get.
 * @returns {Promise<SecretKeys>}
 */
export function derivedKeys(secret, parameters = floorParameters) {
    const key = JSON.stringify([secret, parameters.toJSON()]);
    if (!derivations.has(key)) derivations.set(key, SecretKeys.derive(secret, parameters));
    return derivations.get(key);
}
