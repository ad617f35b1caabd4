/**
 * The private record a user keeps on the relay (SECURITY.md "Sealed private keys"): both private keys sealed under
 * the key derived from the secret, the scrypt parameters, and the secret verifier. The relay cannot open it.
 */

import {
    ByteReader,
    ByteWriter,
    concatBytes,
    constantTimeEqual,
    fromBase64,
    label,
    randomBytes,
    toBase64,
    wipe,
} from './bytes.js';
import { AESGCM, openAESGCM, sealAESGCM } from './aes-gcm.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { IdentityKeys } from './keys.js';
import { KeyDerivationParameters, SecretKeys } from './secret.js';
import { Token } from './token.js';

/**
 * `0x01 || nonce(12) || AES-256-GCM(u16-bytes(signing PKCS#8) || u16-bytes(encryption PKCS#8))` with tag, under
 * associated data `"wots-private-keys-v1\0" || token(16)`, so a sealed blob cannot be moved to another account.
 */
export const SealedPrivateKeys = Object.freeze({
    version: 1,
    label: label('wots-private-keys-v1'),

    /**
     * Seals both private keys for `token` under `keys.encryptionKey` with a fresh random nonce.
     * @param {IdentityKeys} identity must have extractable keys
     * @param {Token} token
     * @param {SecretKeys} keys
     * @returns {Promise<Uint8Array>} the sealed blob
     */
    async seal(identity, token, keys) {
        const signing = await identity.signingPKCS8DER();
        const encryption = await identity.encryptionPKCS8DER();
        const plaintext = new ByteWriter().writeU16Prefixed(signing).writeU16Prefixed(encryption).bytes;
        wipe(signing);
        wipe(encryption);
        const nonce = randomBytes(AESGCM.nonceSize);
        try {
            const aad = concatBytes(SealedPrivateKeys.label, token.bytes);
            const sealed = await sealAESGCM({ key: keys.encryptionKey, nonce, aad, plaintext });
            return concatBytes([SealedPrivateKeys.version], nonce, sealed);
        } finally {
            wipe(plaintext);
        }
    },

    /**
     * Opens the blob for `token` with `keys.encryptionKey`.
     * @param {Uint8Array} sealed
     * @param {Token} token
     * @param {SecretKeys} keys
     * @param {{extractable?: boolean}} [options] passed to `IdentityKeys.fromPKCS8`
     * @returns {Promise<IdentityKeys>}
     * @throws {CryptoError} `wrongSecret` when the key does not open it (or it was changed, or it belongs to another
     *   token), `malformed` / `unsupportedVersion` for a damaged blob, `invalidKey` for bad keys inside
     */
    async open(sealed, token, keys, options = {}) {
        if (sealed.length === 0) throw new CryptoError(CryptoErrorCode.malformed, 'sealed private keys are empty');
        if (sealed[0] !== SealedPrivateKeys.version) {
            throw new CryptoError(
                CryptoErrorCode.unsupportedVersion,
                `sealed private keys version ${sealed[0]} is not supported (only 1)`,
            );
        }
        if (sealed.length < 1 + AESGCM.nonceSize + AESGCM.tagSize) {
            throw new CryptoError(
                CryptoErrorCode.malformed,
                `sealed private keys are ${sealed.length} bytes, too short`,
            );
        }
        const plaintext = await openAESGCM({
            key: keys.encryptionKey,
            nonce: sealed.subarray(1, 1 + AESGCM.nonceSize),
            aad: concatBytes(SealedPrivateKeys.label, token.bytes),
            ciphertext: sealed.subarray(1 + AESGCM.nonceSize),
            failure: new CryptoError(
                CryptoErrorCode.wrongSecret,
                'the secret does not open these private keys (wrong secret or damaged record)',
            ),
        });
        const reader = new ByteReader(plaintext);
        const signing = reader.readU16Prefixed();
        const encryption = reader.readU16Prefixed();
        const complete = signing !== null && encryption !== null && reader.remaining === 0;
        wipe(plaintext);
        try {
            if (!complete) {
                const reason = 'sealed private keys do not hold two length-prefixed keys';
                throw new CryptoError(CryptoErrorCode.malformed, reason);
            }
            return await IdentityKeys.fromPKCS8({ signing, encryption }, options);
        } finally {
            wipe(signing);
            wipe(encryption);
        }
    },
});

/** What a user keeps on the relay so they can restore their account elsewhere. */
export class PrivateRecord {
    /**
     * @param {{token: Token, keyDerivation: KeyDerivationParameters, sealedPrivateKeys: Uint8Array,
     *   secretVerifier: Uint8Array, avatar?: object}} fields `avatar` is carried as the relay's JSON, unencrypted
     */
    constructor({ token, keyDerivation, sealedPrivateKeys, secretVerifier, avatar = undefined }) {
        this.token = token;
        this.keyDerivation = keyDerivation;
        this.sealedPrivateKeys = sealedPrivateKeys;
        this.secretVerifier = secretVerifier;
        this.avatar = avatar;
    }

    /**
     * Derives keys from `secret` and seals `identity` into a new private record.
     * @param {{identity: IdentityKeys, token: Token, secret: string, parameters?: KeyDerivationParameters,
     *   avatar?: object, onProgress?: (fraction: number) => void}} input parameters default to a fresh random salt
     *   with N = 2^15, r = 8, p = 1
     * @returns {Promise<PrivateRecord>}
     * @throws {CryptoError} `invalidKeyDerivation` for out-of-bounds parameters
     */
    static async seal({ identity, token, secret, parameters = KeyDerivationParameters.random(), avatar, onProgress }) {
        const keys = await SecretKeys.derive(secret, parameters, { onProgress });
        return PrivateRecord.sealWithKeys({ identity, token, keys, parameters, avatar });
    }

    /**
     * Seals `identity` with keys already derived from the secret with `parameters` (say by the scrypt worker).
     * @param {{identity: IdentityKeys, token: Token, keys: SecretKeys, parameters: KeyDerivationParameters,
     *   avatar?: object}} input
     * @returns {Promise<PrivateRecord>}
     */
    static async sealWithKeys({ identity, token, keys, parameters, avatar }) {
        return new PrivateRecord({
            token,
            keyDerivation: parameters,
            sealedPrivateKeys: await SealedPrivateKeys.seal(identity, token, keys),
            secretVerifier: await keys.secretVerifier(),
            avatar,
        });
    }

    /**
     * Derives keys from `secret` with the stored parameters and opens the private keys.
     * @throws {CryptoError} `wrongSecret` for another secret, `malformed` for a damaged record
     */
    async openIdentity(secret, { onProgress, extractable } = {}) {
        const keys = await SecretKeys.derive(secret, this.keyDerivation, { onProgress });
        return this.openIdentityWithKeys(keys, { extractable });
    }

    /**
     * Opens the private keys with already derived keys.
     * @throws {CryptoError} `wrongSecret` when the keys do not match the verifier or do not open the blob
     */
    async openIdentityWithKeys(keys, options = {}) {
        if (!(await this.verifies(keys.authenticationKey))) {
            throw new CryptoError(
                CryptoErrorCode.wrongSecret,
                "the secret does not match this account's secret verifier",
            );
        }
        return SealedPrivateKeys.open(this.sealedPrivateKeys, this.token, keys, options);
    }

    /**
     * Whether `authenticationKey` makes the restore key whose public key is the stored secret verifier (compared
     * without early exit).
     */
    async verifies(authenticationKey) {
        const verifier = await SecretKeys.fromKeys(new Uint8Array(0), authenticationKey).secretVerifier();
        return constantTimeEqual(verifier, this.secretVerifier);
    }

    /** The relay's JSON form. */
    toJSON() {
        const json = {
            token: this.token.toString(),
            keyDerivation: this.keyDerivation.toJSON(),
            sealedPrivateKeys: toBase64(this.sealedPrivateKeys),
            secretVerifier: toBase64(this.secretVerifier),
        };
        if (this.avatar !== undefined) json.avatar = this.avatar;
        return json;
    }

    /**
     * Reads the JSON form.
     * @throws {CryptoError} `malformed`, or a `DomainError` for a bad token
     */
    static fromJSON(json) {
        const sealedPrivateKeys = fromBase64(json?.sealedPrivateKeys);
        const secretVerifier = fromBase64(json?.secretVerifier);
        if (sealedPrivateKeys === null || secretVerifier === null) {
            throw new CryptoError(
                CryptoErrorCode.malformed,
                'private record needs base64 sealedPrivateKeys and secretVerifier',
            );
        }
        return new PrivateRecord({
            token: Token.parse(json.token),
            keyDerivation: KeyDerivationParameters.fromJSON(json.keyDerivation),
            sealedPrivateKeys,
            secretVerifier,
            avatar: json.avatar,
        });
    }
}
