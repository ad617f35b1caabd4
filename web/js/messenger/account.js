/**
 * Into an account: the one this browser keeps, a new registration (keys made here, sealed under the secret by scrypt
 * in a worker, registered with a proof), or a restore (the sealed record from the relay, opened here). Each ends in a
 * `Messenger` whose private keys are non-extractable `CryptoKey`s, with the account kept in the `LocalStore`.
 */

import { fromBase64, toBase64 } from '../crypto/bytes.js';
import { IdentityKeys } from '../crypto/keys.js';
import { Nickname } from '../crypto/nickname.js';
import { PrivateRecord } from '../crypto/private-record.js';
import { RegistrationProof } from '../crypto/proofs.js';
import { KeyDerivationParameters } from '../crypto/secret.js';
import { Token } from '../crypto/token.js';
import { RelayClient } from '../protocol/relay-client.js';
import { RelayError } from '../protocol/relay-error.js';
import { LocalStore } from '../storage/local-store.js';
import { StorageKey } from '../storage/storage-key.js';
import { deriveInWorker } from './key-derivation.js';
import { Messenger } from './messenger.js';

/** The account kept in this browser, or null. */
export async function loadAccount({ relay = new RelayClient() } = {}) {
    const store = await LocalStore.open();
    const account = await store.loadAccount();
    if (!account) {
        store.close();
        return null;
    }
    const identity = await IdentityKeys.fromPKCS8({
        signing: fromBase64(account.privateKeys.signing),
        encryption: fromBase64(account.privateKeys.encryption),
    });
    return new Messenger({ store, relay, account, identity });
}

/**
 * Makes keys here, seals them under the secret (scrypt in a worker), registers at the relay, keeps the account.
 * @param {{nickname: string, secret: string, avatar?: {preset: string}, invite?: string,
 *   onProgress?: (fraction: number) => void}} input
 */
export async function registerAccount({ nickname, secret, avatar, invite, onProgress, relay = new RelayClient() }) {
    const name = new Nickname(nickname);
    const [identity, relayID] = await Promise.all([IdentityKeys.generate({ extractable: true }), relay.relayID()]);
    const token = Token.random();
    const parameters = KeyDerivationParameters.random();
    const keys = await deriveInWorker(secret, parameters, onProgress);
    const privateRecord = await PrivateRecord.sealWithKeys({ identity, token, keys, parameters, avatar });
    const proof = await RegistrationProof.sign({ relayID, token, nickname: name, identity });
    const request = {
        token: String(token),
        nickname: String(name),
        publicKeys: identity.publicKeys.toJSON(),
        privateRecord: privateRecord.toJSON(),
        proof: toBase64(proof),
    };
    if (invite) request.invite = invite;
    const entry = await relay.register(request);
    return keep({ relay, entry, identity, keys, relayID, avatar });
}

/** Restores an account with its nickname and secret: the sealed record from the relay, opened here. */
export async function restoreAccount({ nickname, secret, onProgress, relay = new RelayClient() }) {
    const name = new Nickname(nickname);
    const { keyDerivation } = await relay.restoreParameters(name);
    const parameters = KeyDerivationParameters.fromJSON(keyDerivation);
    const keys = await deriveInWorker(secret, parameters, onProgress);
    const account = await relay.restore(name, keys);
    const record = PrivateRecord.fromJSON(account.privateRecord);
    const identity = await record.openIdentityWithKeys(keys, { extractable: true });
    if (identity.fingerprint.hex !== account.entry.fingerprint) {
        throw new RelayError('key_changed', 'the restored keys are not the ones the directory publishes');
    }
    const relayID = await relay.relayID();
    return keep({ relay, entry: account.entry, identity, keys, relayID, avatar: record.avatar });
}

async function keep({ relay, entry, identity, keys, relayID, avatar }) {
    const store = await LocalStore.open();
    const privateKeys = {
        signing: toBase64(await identity.signingPKCS8DER()),
        encryption: toBase64(await identity.encryptionPKCS8DER()),
    };
    const account = {
        token: entry.token,
        nickname: entry.nickname,
        relayID: toBase64(relayID),
        publicKeys: identity.publicKeys.toJSON(),
        fingerprint: identity.fingerprint.hex,
        avatar: avatar ?? null,
    };
    await store.saveAccount({ ...account, privateKeys, storageKey: await StorageKey.derive(keys) });
    // The session keys: private keys only as non-extractable CryptoKeys from here on.
    const sessionIdentity = await IdentityKeys.fromPKCS8({
        signing: fromBase64(privateKeys.signing),
        encryption: fromBase64(privateKeys.encryption),
    });
    return new Messenger({ store, relay, account, identity: sessionIdentity });
}
