/**
 * Identity keys (SECURITY.md "Identity and keys"): two RSA-2048 key pairs per identity, one that only signs
 * (RSA-PSS) and one that only decrypts (RSA-OAEP), with their public keys and fingerprint.
 */

import { compareBytes, fromBase64, toBase64, toBase64URL } from './bytes.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { fingerprintOf } from './fingerprint.js';
import { rsaPublicNumbers } from './pkcs8.js';
import {
    checkRSAKeyAlgorithm,
    decryptOAEP,
    encryptionAlgorithm,
    importPublicKey,
    RSAParameters,
    signingAlgorithm,
    signPSS,
} from './rsa.js';

/** An identity's two public keys as DER SubjectPublicKeyInfo, as the directory publishes them. */
export class PublicKeys {
    /** @param {{signing: Uint8Array, encryption: Uint8Array}} keys */
    constructor({ signing, encryption }) {
        this.signing = signing;
        this.encryption = encryption;
    }

    /** Whether both keys are byte for byte the same. Public keys are public: no constant time needed. */
    equals(other) {
        return compareBytes(this.signing, other.signing) === 0 && compareBytes(this.encryption, other.encryption) === 0;
    }

    /** The relay's JSON form: `{signing: base64, encryption: base64}`. */
    toJSON() {
        return { signing: toBase64(this.signing), encryption: toBase64(this.encryption) };
    }

    /** @throws {CryptoError} `invalidKey` when a field is not base64 */
    static fromJSON(json) {
        const signing = fromBase64(json?.signing);
        const encryption = fromBase64(json?.encryption);
        if (signing === null || encryption === null) {
            throw new CryptoError(
                CryptoErrorCode.invalidKey,
                'public keys need base64 "signing" and "encryption" fields',
            );
        }
        return new PublicKeys({ signing, encryption });
    }
}

/** Both public keys of an identity, validated and imported, with their fingerprint. */
export class ParsedPublicKeys {
    constructor({ publicKeys, signing, encryption, fingerprint }) {
        this.publicKeys = publicKeys;
        /** RSA-PSS verify key. */
        this.signing = signing;
        /** RSA-OAEP encrypt key. */
        this.encryption = encryption;
        this.fingerprint = fingerprint;
    }

    /**
     * Checks both keys are canonical RSA-2048 SPKI DER with e = 65537 and two different keys, and imports them.
     * @param {PublicKeys} publicKeys
     * @returns {Promise<ParsedPublicKeys>}
     * @throws {CryptoError} `invalidKey` naming the key at fault
     */
    static async parse(publicKeys) {
        if (compareBytes(publicKeys.signing, publicKeys.encryption) === 0) {
            throw new CryptoError(
                CryptoErrorCode.invalidKey,
                'the signing and encryption public keys are the same key (must be two)',
            );
        }
        const [signing, encryption, fingerprint] = await Promise.all([
            importPublicKey(publicKeys.signing, 'signing'),
            importPublicKey(publicKeys.encryption, 'encryption'),
            fingerprintOf(publicKeys),
        ]);
        return new ParsedPublicKeys({ publicKeys, signing, encryption, fingerprint });
    }
}

const generationParameters = {
    modulusLength: RSAParameters.modulusLength,
    publicExponent: Uint8Array.from(RSAParameters.publicExponent),
};

/**
 * The private side of an identity. Never describes its key material: `toString` names the kind of keys and the
 * fingerprint.
 */
export class IdentityKeys {
    #signing;
    #encryption;

    constructor({ signing, encryption, publicKeys, fingerprint }) {
        this.#signing = signing;
        this.#encryption = encryption;
        /** Both public keys as SPKI DER. */
        this.publicKeys = publicKeys;
        /** SHA-256 over both public keys, signing first. */
        this.fingerprint = fingerprint;
    }

    /**
     * Generates two fresh RSA-2048 key pairs (e = 65537), one for signing and one for encryption.
     * @param {{extractable?: boolean}} [options] default true: new keys must be exported once to be sealed into
     *   the private record; pass false when that is done elsewhere
     * @returns {Promise<IdentityKeys>}
     */
    static async generate({ extractable = true } = {}) {
        const [signing, encryption] = await Promise.all([
            crypto.subtle.generateKey(
                { ...signingAlgorithm, ...generationParameters },
                extractable,
                ['sign', 'verify'],
            ),
            crypto.subtle.generateKey(
                { ...encryptionAlgorithm, ...generationParameters },
                extractable,
                ['encrypt', 'decrypt'],
            ),
        ]);
        const publicKeys = new PublicKeys({
            signing: new Uint8Array(await crypto.subtle.exportKey('spki', signing.publicKey)),
            encryption: new Uint8Array(await crypto.subtle.exportKey('spki', encryption.publicKey)),
        });
        const parsed = await ParsedPublicKeys.parse(publicKeys);
        return new IdentityKeys({
            signing: signing.privateKey,
            encryption: encryption.privateKey,
            publicKeys,
            fingerprint: parsed.fingerprint,
        });
    }

    /**
     * Reads both private keys from DER PKCS#8 PrivateKeyInfo.
     * @param {{signing: Uint8Array, encryption: Uint8Array}} pkcs8 DER of each private key
     * @param {{extractable?: boolean}} [options] default false: opened keys stay inside WebCrypto
     * @returns {Promise<IdentityKeys>}
     * @throws {CryptoError} `invalidKey` unless both are RSA-2048 keys with e = 65537, and different
     */
    static async fromPKCS8({ signing, encryption }, { extractable = false } = {}) {
        const [signingPair, encryptionPair] = await Promise.all([
            importPrivateKey(signing, 'signing', extractable),
            importPrivateKey(encryption, 'encryption', extractable),
        ]);
        const publicKeys = new PublicKeys({ signing: signingPair.spki, encryption: encryptionPair.spki });
        const parsed = await ParsedPublicKeys.parse(publicKeys);
        return new IdentityKeys({
            signing: signingPair.privateKey,
            encryption: encryptionPair.privateKey,
            publicKeys,
            fingerprint: parsed.fingerprint,
        });
    }

    /** Signs `message` with RSA-PSS (salt 32) under the signing key. @returns {Promise<Uint8Array>} */
    async sign(message) {
        return signPSS(this.#signing, message);
    }

    /**
     * Unwraps an RSA-OAEP ciphertext with the encryption key.
     * @throws {CryptoError} `decryptionFailed`
     */
    async decrypt(ciphertext) {
        return decryptOAEP(this.#encryption, ciphertext);
    }

    /** The signing private key as DER PKCS#8. Secret: seal it, wipe it, never log it. Needs extractable keys. */
    async signingPKCS8DER() {
        return exportPKCS8(this.#signing, 'signing');
    }

    /** The encryption private key as DER PKCS#8. Secret: seal it, wipe it, never log it. Needs extractable keys. */
    async encryptionPKCS8DER() {
        return exportPKCS8(this.#encryption, 'encryption');
    }

    toString() {
        return `IdentityKeys(RSA-2048 ×2, fingerprint ${this.fingerprint.grouped})`;
    }

    toJSON() {
        return this.toString();
    }
}

/**
 * Imports one PKCS#8 private key and rebuilds its public key's SPKI from the key's own modulus and exponent, so
 * the private key never has to be exported (see pkcs8.js).
 */
async function importPrivateKey(pkcs8, use, extractable) {
    const what = `${use} private key`;
    const [algorithm, usage] = use === 'signing' ? [signingAlgorithm, 'sign'] : [encryptionAlgorithm, 'decrypt'];
    let privateKey;
    try {
        privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, algorithm, extractable, [usage]);
    } catch {
        throw new CryptoError(CryptoErrorCode.invalidKey, `${what} is not a DER PKCS#8 RSA private key`);
    }
    checkRSAKeyAlgorithm(privateKey, what);
    const { modulus, exponent } = rsaPublicNumbers(pkcs8, what);
    const publicJWK = { kty: 'RSA', n: toBase64URL(modulus), e: toBase64URL(exponent), ext: true };
    const publicUsage = use === 'signing' ? 'verify' : 'encrypt';
    const publicKey = await crypto.subtle.importKey('jwk', publicJWK, algorithm, true, [publicUsage]);
    const spki = new Uint8Array(await crypto.subtle.exportKey('spki', publicKey));
    return { privateKey, spki };
}

async function exportPKCS8(key, use) {
    if (!key.extractable) {
        throw new CryptoError(CryptoErrorCode.invalidKey, `the ${use} private key was imported as not extractable`);
    }
    return new Uint8Array(await crypto.subtle.exportKey('pkcs8', key));
}
