/**
 * The key that wraps everything the page keeps in IndexedDB: AES-256-GCM, derived by HKDF-SHA256 from the
 * secret's scrypt output (`SecretKeys.encryptionKey`, label `wots-web-store-v1`), imported as non-extractable, so
 * script can use it but never read its bytes. Records are sealed with a fresh 12-byte nonce and the record's name
 * as associated data, so one record cannot stand in for another.
 */

import { fromUTF8, label, randomBytes, utf8 } from '../crypto/bytes.js';

export class StorageKey {
    static label = label('wots-web-store-v1');

    /** @param {CryptoKey} key non-extractable AES-GCM */
    constructor(key) {
        this.key = key;
    }

    /** @param {import('../crypto/secret.js').SecretKeys} secretKeys */
    static async derive(secretKeys) {
        const material = await crypto.subtle.importKey('raw', secretKeys.encryptionKey, 'HKDF', false, ['deriveKey']);
        const key = await crypto.subtle.deriveKey(
            { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: StorageKey.label },
            material,
            { name: 'AES-GCM', length: 256 },
            false,
            ['encrypt', 'decrypt'],
        );
        return new StorageKey(key);
    }

    /** Seals a JSON value under `name`. @returns {Promise<{nonce: Uint8Array, sealed: Uint8Array}>} */
    async seal(name, value) {
        const nonce = randomBytes(12);
        const sealed = await crypto.subtle.encrypt(
            { name: 'AES-GCM', iv: nonce, additionalData: utf8(name) },
            this.key,
            utf8(JSON.stringify(value)),
        );
        return { nonce, sealed: new Uint8Array(sealed) };
    }

    /** Opens what `seal` made under the same name; throws when it was changed or moved. */
    async open(name, { nonce, sealed }) {
        const algorithm = { name: 'AES-GCM', iv: nonce, additionalData: utf8(name) };
        const plain = await crypto.subtle.decrypt(algorithm, this.key, sealed);
        return JSON.parse(fromUTF8(new Uint8Array(plain)));
    }

    /** Seals bytes (an attachment) under `name`, as `seal` does a JSON value. */
    async sealBytes(name, bytes) {
        const nonce = randomBytes(12);
        const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: utf8(name) },
            this.key, bytes);
        return { nonce, sealed: new Uint8Array(sealed) };
    }

    /** Opens what `sealBytes` made under the same name. */
    async openBytes(name, { nonce, sealed }) {
        const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce, additionalData: utf8(name) },
            this.key, sealed);
        return new Uint8Array(plain);
    }

    toString() {
        return 'StorageKey(AES-256-GCM, not extractable)';
    }
}
