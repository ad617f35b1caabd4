/**
 * Runs scrypt in the module worker `crypto/scrypt-worker.js`, so the page keeps drawing its progress bar while
 * N = 2^15 (or more) takes its second or so. One worker per derivation, ended afterwards.
 */

import { CryptoError } from '../crypto/errors.js';
import { SecretKeys } from '../crypto/secret.js';

/**
 * @param {string} secret as typed
 * @param {import('../crypto/secret.js').KeyDerivationParameters} parameters
 * @param {(fraction: number) => void} [onProgress]
 * @returns {Promise<SecretKeys>}
 */
export function deriveInWorker(secret, parameters, onProgress = () => {}) {
    const worker = new Worker(new URL('../crypto/scrypt-worker.js', import.meta.url), { type: 'module' });
    return new Promise((resolve, reject) => {
        worker.addEventListener('message', ({ data }) => {
            if (data.type === 'progress') {
                onProgress(data.fraction);
                return;
            }
            worker.terminate();
            if (data.type === 'result') resolve(SecretKeys.fromKeys(data.encryptionKey, data.authenticationKey));
            else reject(new CryptoError(data.code, data.reason));
        });
        worker.addEventListener('error', (event) => {
            worker.terminate();
            reject(new CryptoError('crypto_library', `the key derivation worker failed: ${event.message}`));
        });
        worker.postMessage({ id: 1, secret, parameters: parameters.toJSON() });
    });
}
