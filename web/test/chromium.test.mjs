import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { before, describe, test } from 'node:test';

import { fromBase64 } from '../js/crypto/bytes.js';
import { Envelope } from '../js/crypto/envelope.js';
import { openEnvelope } from '../js/crypto/envelope-sealing.js';
import { PublicKeys } from '../js/crypto/keys.js';
import { readVector, repositoryRoot, vectorParty } from '../testing/tools.mjs';

// The same crypto core in a real browser: headless Chromium loads web/testing/browser/index.html from a local
// server, runs browser-checks.mjs, and posts each check's outcome back here.

const browserCandidates = [process.env.CHROMIUM, 'chromium-headless-shell', 'chromium', 'chromium-browser'].filter(Boolean);
const browser = browserCandidates.find((name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0);
const skip = browser
    ? false
    : 'no headless Chromium (install the pinned chromium-headless-shell with web/tools/install-browser.sh, or set CHROMIUM)';

const contentTypes = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json' };
// Only what the page needs: the web client and the committed vectors.
const servedFolders = ['web/', 'schema/vectors/'];

function serve(onResults) {
    return createServer((request, response) => {
        if (request.method === 'POST' && request.url === '/results') {
            let body = '';
            request.on('data', (chunk) => (body += chunk));
            request.on('end', () => {
                response.end('ok');
                onResults(JSON.parse(body));
            });
            return;
        }
        const path = normalize(decodeURIComponent(new URL(request.url, 'http://localhost').pathname)).replace(/^\/+/, '');
        if (!servedFolders.some((folder) => path.startsWith(folder)) || path.includes('..')) {
            response.writeHead(404).end();
            return;
        }
        try {
            const body = readFileSync(join(repositoryRoot, path));
            response.writeHead(200, { 'content-type': contentTypes[extname(path)] ?? 'application/octet-stream' }).end(body);
        } catch {
            response.writeHead(404).end();
        }
    });
}

describe('in headless Chromium', { skip }, () => {
    let outcome;
    let stderr = '';

    before(async () => {
        let deliver;
        const delivered = new Promise((resolve) => (deliver = resolve));
        const server = serve(deliver);
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        const profile = mkdtempSync(join(tmpdir(), 'wots-chromium-'));
        const url = `http://127.0.0.1:${server.address().port}/web/testing/browser/index.html`;
        // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        const args = ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--remote-debugging-port=0', url];
        // Its own process group: distribution launchers are shell wrappers, and the browser forks helpers that
        // would outlive a kill of the first process and hold this test open.
        const child = spawn(browser, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
        child.stderr.on('data', (chunk) => (stderr += chunk));
        const exited = new Promise((resolve) => child.on('exit', (code) => resolve({ exited: code })));
        const timedOut = new Promise((resolve) => setTimeout(() => resolve({ timedOut: true }), 90_000).unref());
        try {
            outcome = await Promise.race([delivered, exited, timedOut]);
        } finally {
            try {
                process.kill(-child.pid, 'SIGKILL');
            } catch {
                // Already gone.
            }
            server.close();
            rmSync(profile, { recursive: true, force: true });
        }
    }, { timeout: 120_000 });

    test('the page ran and reported', () => {
        assert.ok(Array.isArray(outcome?.results), `no results from ${browser}: ${JSON.stringify(outcome)}\n${stderr.slice(-2000)}`);
        assert.ok(outcome.results.length >= 10, `${outcome.results.length} checks reported`);
    });

    const expected = [
        'scrypt: RFC 7914 vectors 1–3',
        'the committed envelope vector opens to its plaintext',
        'an envelope sealed here opens here, and tampering is refused',
        'fresh identity keys sign a registration proof that verifies',
        'the restore key (Ed25519 in WebCrypto) gives the RFC 8032 public key and a restore signature that verifies',
        'public keys with a trailing byte are refused',
        'a private record seals and opens (NFC), and refuses another secret',
        'the scrypt worker runs as a module worker and reports progress, then the keys',
        'scrypt timing at N = 2^14 and 2^15 (informational)',
        'WebCrypto PBKDF2 and a zero-length key (informational)',
        'the committed group envelope vector opens here, and its state hash is rebuilt',
        'IndexedDB: a version 2 database upgrades to version 3, keeping its records and adding the group book',
    ];
    for (const name of expected) {
        test(name, () => {
            const result = outcome?.results?.find((entry) => entry.name === name);
            assert.ok(result, `the page did not report "${name}"`);
            assert.ok(result.ok, result.error);
        });
    }

    test('an envelope sealed in Chromium opens in Node', async () => {
        const vector = readVector();
        const bob = await vectorParty(vector.recipient);
        const envelope = Envelope.fromSerialized(fromBase64(outcome.facts.sealedForBob));
        const senderKeys = PublicKeys.fromJSON(vector.sender.publicKeys);
        const opened = await openEnvelope(envelope, { recipient: bob.token, identity: bob.identity, senderKeys });
        assert.equal(opened.text, 'sealed in the browser ✓');
    });

    test('says which engine ran it and how fast scrypt was there', (t) => {
        const { userAgent, milliseconds, emptyPBKDF2Key, scryptMilliseconds } = outcome.facts;
        assert.match(userAgent, /Chrome/);
        t.diagnostic(`${userAgent}; all checks ${milliseconds} ms; zero-length PBKDF2 key ${emptyPBKDF2Key}`);
        t.diagnostic(`scrypt r=8 p=1 on the page: N=2^14 ${scryptMilliseconds[14]} ms, N=2^15 ${scryptMilliseconds[15]} ms`);
    });
});
