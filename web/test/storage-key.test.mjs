import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { SecretKeys } from '../js/crypto/secret.js';
import { StorageKey } from '../js/storage/storage-key.js';

const keys = SecretKeys.fromKeys(new Uint8Array(32).fill(7), new Uint8Array(32).fill(9));

describe('the storage key (browser key storage, SECURITY.md)', () => {
    test('is derived from the secret, not extractable, and opens what it sealed under the same name', async () => {
        const storageKey = await StorageKey.derive(keys);
        assert.equal(storageKey.key.extractable, false);
        await assert.rejects(crypto.subtle.exportKey('raw', storageKey.key));
        const sealed = await storageKey.seal('account/privateKeys', { signing: 'AAAA' });
        assert.deepEqual(await storageKey.open('account/privateKeys', sealed), { signing: 'AAAA' });
        const again = await StorageKey.derive(keys);
        assert.deepEqual(await again.open('account/privateKeys', sealed), { signing: 'AAAA' }, 'the same secret, the same key');
    });

    test('a record moved to another name, changed, or opened with another secret fails', async () => {
        const storageKey = await StorageKey.derive(keys);
        const sealed = await storageKey.seal('message/a', { text: 'hi' });
        await assert.rejects(storageKey.open('message/b', sealed));
        const changed = { ...sealed, sealed: sealed.sealed.slice() };
        changed.sealed[0] ^= 1;
        await assert.rejects(storageKey.open('message/a', changed));
        const other = await StorageKey.derive(SecretKeys.fromKeys(new Uint8Array(32).fill(8), new Uint8Array(32)));
        await assert.rejects(other.open('message/a', sealed));
        assert.ok(!JSON.stringify(sealed.sealed).includes('hi'));
    });
});
