/**
 * The signed byte strings besides envelopes (SECURITY.md "Login", "Registration", "Key rotation", "Replay
 * protection"): login, restore and deletion answer a relay's single-use challenge; registration and rotation prove
 * possession of keys. Each starts with
 * its own label and zero byte, so a signature made for one purpose never verifies for another. Each layout is
 * `signedBytes` of its own object: changing what a proof covers is an edit there.
 */

import { ByteWriter, fromBase64, label, toBase64, utf8 } from './bytes.js';
import { ed25519Verify } from './ed25519.js';
import { CryptoError, CryptoErrorCode } from './errors.js';
import { ParsedPublicKeys } from './keys.js';
import { verifyPSS } from './rsa.js';

const u16Maximum = 0xffff;

function checkFieldLength(bytes, what, minimum = 0) {
    if (bytes.length < minimum || bytes.length > u16Maximum) {
        throw new CryptoError(
            CryptoErrorCode.malformed,
            `${what} is ${bytes.length} bytes (must be ${minimum}–65,535)`,
        );
    }
}

/** Parsed signing key of `publicKeys`, or null when the keys are unusable (a proof by bad keys never verifies). */
async function signingKeyOrNull(publicKeys) {
    try {
        return (await ParsedPublicKeys.parse(publicKeys)).signing;
    } catch {
        return null;
    }
}

/**
 * The bytes that answer one of a relay's single-use challenges: `label || u16-bytes(relayID) || u16-bytes(nonce) ||
 * subject`. The label names the purpose (login, restore, deletion), the relay id makes the answer useless at
 * another relay, the nonce is used once.
 * @throws {CryptoError} `malformed` when the relay id or nonce is empty or longer than 65,535 bytes
 */
function challengeStatement({ label: purpose, relayID, nonce, subject }) {
    checkFieldLength(relayID, 'relay id', 1);
    checkFieldLength(nonce, 'challenge nonce', 1);
    return new ByteWriter().write(purpose).writeU16Prefixed(relayID).writeU16Prefixed(nonce).write(subject).bytes;
}

/** `signedBytes(fields)`, or null where it throws (a proof over unusable fields never verifies). */
function signedBytesOrNull(proof, fields) {
    try {
        return proof.signedBytes(fields);
    } catch {
        return null;
    }
}

/**
 * Login: `"wots-auth-v1\0" || u16-bytes(relayID) || u16-bytes(nonce) || token(16)`, signed by the signing key.
 * The relay id makes a login signature useless at another relay.
 */
export const AuthenticationProof = Object.freeze({
    label: label('wots-auth-v1'),

    /**
     * @param {{relayID: Uint8Array, nonce: Uint8Array, token: import('./token.js').Token}} fields
     * @returns {Uint8Array}
     * @throws {CryptoError} `malformed` when the relay id or nonce is empty or longer than 65,535 bytes
     */
    signedBytes({ relayID, nonce, token }) {
        return challengeStatement({ label: AuthenticationProof.label, relayID, nonce, subject: token.bytes });
    },

    /** Signs a relay's login challenge. @returns {Promise<Uint8Array>} the 256-byte signature */
    async sign({ relayID, nonce, token, identity }) {
        return identity.sign(AuthenticationProof.signedBytes({ relayID, nonce, token }));
    },

    /** Whether `signature` is the login signature of `publicKeys` for that relay, nonce and token. */
    async verify({ signature, relayID, nonce, token, publicKeys }) {
        const key = await signingKeyOrNull(publicKeys);
        const message = signedBytesOrNull(AuthenticationProof, { relayID, nonce, token });
        return key !== null && message !== null && verifyPSS(key, signature, message);
    },
});

/**
 * Deletion: `"wots-delete-v1\0" || u16-bytes(relayID) || u16-bytes(nonce) || token(16)`, signed by the identity's
 * signing key (RSA-PSS, as a login), so a stolen session alone cannot delete an account.
 */
export const DeletionProof = Object.freeze({
    label: label('wots-delete-v1'),

    /**
     * @param {{relayID: Uint8Array, nonce: Uint8Array, token: import('./token.js').Token}} fields
     * @returns {Uint8Array}
     * @throws {CryptoError} `malformed` when the relay id or nonce is empty or longer than 65,535 bytes
     */
    signedBytes({ relayID, nonce, token }) {
        return challengeStatement({ label: DeletionProof.label, relayID, nonce, subject: token.bytes });
    },

    /** Signs a relay's challenge as "delete account `token` at this relay". @returns {Promise<Uint8Array>} */
    async sign({ relayID, nonce, token, identity }) {
        return identity.sign(DeletionProof.signedBytes({ relayID, nonce, token }));
    },

    /** Whether `signature` is `publicKeys`' deletion statement for that relay, nonce and token. */
    async verify({ signature, relayID, nonce, token, publicKeys }) {
        const key = await signingKeyOrNull(publicKeys);
        const message = signedBytesOrNull(DeletionProof, { relayID, nonce, token });
        return key !== null && message !== null && verifyPSS(key, signature, message);
    },
});

/**
 * Restore: `"wots-restore-v1\0" || u16-bytes(relayID) || u16-bytes(nonce) || u16-bytes(nickname)`, nickname as the
 * UTF-8 of its lower-cased form, signed with pure Ed25519 by the restore key (`SecretKeys.signRestore`); the relay
 * verifies it with the record's `secretVerifier`.
 */
export const RestoreProof = Object.freeze({
    label: label('wots-restore-v1'),

    /**
     * @param {{relayID: Uint8Array, nonce: Uint8Array, nickname: import('./nickname.js').Nickname}} fields
     * @returns {Uint8Array}
     * @throws {CryptoError} `malformed` when the relay id or nonce is empty or longer than 65,535 bytes
     */
    signedBytes({ relayID, nonce, nickname }) {
        const subject = new ByteWriter().writeU16Prefixed(utf8(nickname.value)).bytes;
        return challengeStatement({ label: RestoreProof.label, relayID, nonce, subject });
    },

    /** Whether `signature` proves knowledge of the secret whose restore public key is `secretVerifier`. */
    async verify({ signature, secretVerifier, relayID, nonce, nickname }) {
        const message = signedBytesOrNull(RestoreProof, { relayID, nonce, nickname });
        return message !== null && ed25519Verify(secretVerifier, signature, message);
    },
});

/**
 * Registration proof of possession: `"wots-register-v2\0" || u16-bytes(relayID) || token(16) ||
 * u16-bytes(nickname) || u16-bytes(signing SPKI) || u16-bytes(encryption SPKI)`, nickname as the UTF-8 of its
 * lower-cased form, signed by the new signing key. The relay id (`GET /v1/relay`) binds it to one relay.
 */
export const RegistrationProof = Object.freeze({
    label: label('wots-register-v2'),

    /**
     * @param {{relayID: Uint8Array, token: import('./token.js').Token, nickname: import('./nickname.js').Nickname,
     *   publicKeys: import('./keys.js').PublicKeys}} fields
     * @returns {Uint8Array}
     * @throws {CryptoError} `malformed` when the relay id is empty or a field is longer than 65,535 bytes
     */
    signedBytes({ relayID, token, nickname, publicKeys }) {
        checkFieldLength(relayID, 'relay id', 1);
        checkFieldLength(publicKeys.signing, 'signing public key');
        checkFieldLength(publicKeys.encryption, 'encryption public key');
        return new ByteWriter()
            .write(RegistrationProof.label)
            .writeU16Prefixed(relayID)
            .write(token.bytes)
            .writeU16Prefixed(utf8(nickname.value))
            .writeU16Prefixed(publicKeys.signing)
            .writeU16Prefixed(publicKeys.encryption).bytes;
    },

    /**
     * Signs the registration at `relayID` with the identity's signing key, over the identity's own public keys.
     * @returns {Promise<Uint8Array>}
     */
    async sign({ relayID, token, nickname, identity }) {
        const publicKeys = identity.publicKeys;
        return identity.sign(RegistrationProof.signedBytes({ relayID, token, nickname, publicKeys }));
    },

    /** Whether both keys are usable RSA-2048 keys and `signature` is the signing key's proof over the registration. */
    async verify({ signature, relayID, token, nickname, publicKeys }) {
        const key = await signingKeyOrNull(publicKeys);
        const message = signedBytesOrNull(RegistrationProof, { relayID, token, nickname, publicKeys });
        return key !== null && message !== null && verifyPSS(key, signature, message);
    },
});

/**
 * Key rotation: `"wots-rotate-v1\0" || token(16) || old fingerprint(32) || u16-bytes(new signing SPKI) ||
 * u16-bytes(new encryption SPKI)`, signed by the old signing key (the owner wants it) and by the new one
 * (possession).
 */
export class RotationProof {
    static label = label('wots-rotate-v1');

    /** @param {{oldKeySignature: Uint8Array, newKeySignature: Uint8Array}} signatures */
    constructor({ oldKeySignature, newKeySignature }) {
        this.oldKeySignature = oldKeySignature;
        this.newKeySignature = newKeySignature;
    }

    /**
     * @param {{token: import('./token.js').Token, oldFingerprint: import('./fingerprint.js').Fingerprint,
     *   newKeys: import('./keys.js').PublicKeys}} fields
     * @returns {Uint8Array}
     * @throws {CryptoError} `malformed` when a key is longer than 65,535 bytes
     */
    static signedBytes({ token, oldFingerprint, newKeys }) {
        checkFieldLength(newKeys.signing, 'new signing public key');
        checkFieldLength(newKeys.encryption, 'new encryption public key');
        return new ByteWriter()
            .write(RotationProof.label)
            .write(token.bytes)
            .write(oldFingerprint.bytes)
            .writeU16Prefixed(newKeys.signing)
            .writeU16Prefixed(newKeys.encryption).bytes;
    }

    /**
     * Signs the rotation of `token` from `oldIdentity` to `newIdentity` with both signing keys.
     * @returns {Promise<RotationProof>}
     */
    static async sign({ token, oldIdentity, newIdentity }) {
        const oldFingerprint = oldIdentity.fingerprint;
        const message = RotationProof.signedBytes({ token, oldFingerprint, newKeys: newIdentity.publicKeys });
        const [oldKeySignature, newKeySignature] = await Promise.all([
            oldIdentity.sign(message),
            newIdentity.sign(message),
        ]);
        return new RotationProof({ oldKeySignature, newKeySignature });
    }

    /**
     * Whether both key pairs are usable and both signatures verify: the old one under `oldKeys`, the new one under
     * `newKeys`.
     */
    async verify({ token, oldKeys, newKeys }) {
        let oldParsed;
        let newParsed;
        try {
            oldParsed = await ParsedPublicKeys.parse(oldKeys);
            newParsed = await ParsedPublicKeys.parse(newKeys);
        } catch {
            return false;
        }
        const message = RotationProof.signedBytes({ token, oldFingerprint: oldParsed.fingerprint, newKeys });
        const [oldValid, newValid] = await Promise.all([
            verifyPSS(oldParsed.signing, this.oldKeySignature, message),
            verifyPSS(newParsed.signing, this.newKeySignature, message),
        ]);
        return oldValid && newValid;
    }

    /** The relay's JSON form: both signatures in base64. */
    toJSON() {
        return { oldKeySignature: toBase64(this.oldKeySignature), newKeySignature: toBase64(this.newKeySignature) };
    }

    /** @throws {CryptoError} `malformed` when a signature is not base64 */
    static fromJSON(json) {
        const oldKeySignature = fromBase64(json?.oldKeySignature);
        const newKeySignature = fromBase64(json?.newKeySignature);
        if (oldKeySignature === null || newKeySignature === null) {
            throw new CryptoError(
                CryptoErrorCode.malformed,
                'rotation proof needs base64 oldKeySignature and newKeySignature',
            );
        }
        return new RotationProof({ oldKeySignature, newKeySignature });
    }
}
