/**
 * Web Worker wrapper for key derivation: scrypt at N = 2^15 takes long enough to freeze a page, so the page
 * posts the request here and draws the progress it gets back.
 *
 * Request: `{id, secret, parameters: {salt: base64, n, r, p}}`, as the private record stores them.
 * Replies: `{id, type: 'progress', fraction}` (0…1, a few dozen times), then
 * `{id, type: 'result', encryptionKey, authenticationKey, secretVerifier}` (Uint8Arrays; `secretVerifier` is the
 * restore key's Ed25519 public key, `SecretKeys.secretVerifier()`) or
 * `{id, type: 'error', code, reason}`.
 *
 * Loaded as a module worker (`new Worker(url, {type: 'module'})`), it answers messages by itself; imported
 * anywhere else it does nothing until `attachScryptWorker` is called, so tests can drive it without a browser.
 */

import { KeyDerivationParameters, SecretKeys } from './secret.js';

/**
 * Derives the keys for one request and reports through `post`.
 * @param {{id?: unknown, secret: string, parameters: {salt: string, n: number, r: number, p: number}}} request
 * @param {(message: object) => void} post
 * @returns {Promise<void>} settles after the result or the error was posted
 */
export async function handleScryptRequest(request, post) {
    const id = request?.id;
    try {
        const parameters = KeyDerivationParameters.fromJSON(request?.parameters);
        if (typeof request.secret !== 'string') throw new TypeError('the request has no secret string');
        const keys = await SecretKeys.derive(request.secret, parameters, {
            onProgress: (fraction) => post({ id, type: 'progress', fraction }),
        });
        const { encryptionKey, authenticationKey } = keys;
        const secretVerifier = await keys.secretVerifier();
        post({ id, type: 'result', encryptionKey, authenticationKey, secretVerifier });
    } catch (error) {
        post({ id, type: 'error', code: error.code ?? 'malformed', reason: error.message });
    }
}

/**
 * Answers every `message` event of `scope` (a worker global, or a test double) with `handleScryptRequest`.
 * @param {{addEventListener: Function, postMessage: Function}} scope
 */
export function attachScryptWorker(scope) {
    const post = (message) => scope.postMessage(message);
    scope.addEventListener('message', (event) => handleScryptRequest(event.data, post));
}

// Only a dedicated worker's global has this constructor in scope.
const workerScope = globalThis.DedicatedWorkerGlobalScope;
if (typeof workerScope === 'function' && globalThis instanceof workerScope) {
    attachScryptWorker(globalThis);
}
