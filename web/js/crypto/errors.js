/**
 * The two error vocabularies of the Swift side (`WotsCore.DomainError`, `WotsCrypto.CryptoError`), with the same
 * stable snake_case codes, so a web client and the CLI report the same failure by the same name.
 *
 * Reasons name the offending value and the rule; they never carry key material, secrets or plaintext.
 */

/** Codes of a value that does not satisfy Wots' rules (a token, nickname, fingerprint, envelope layout). */
export const DomainErrorCode = Object.freeze({
    invalidNickname: 'invalid_nickname',
    invalidToken: 'invalid_token',
    invalidFingerprint: 'invalid_fingerprint',
    malformedEnvelope: 'malformed_envelope',
    unsupportedVersion: 'unsupported_version',
    sentAtOutOfRange: 'sent_at_out_of_range',
    malformed: 'malformed',
});

/** Codes of a cryptographic operation that failed or refused its input. */
export const CryptoErrorCode = Object.freeze({
    badSignature: 'bad_signature',
    notForMe: 'not_for_me',
    senderKeyMismatch: 'sender_key_mismatch',
    malformed: 'malformed',
    unsupportedVersion: 'unsupported_version',
    decryptionFailed: 'decryption_failed',
    wrongSecret: 'wrong_secret',
    invalidKey: 'invalid_key',
    invalidKeyDerivation: 'invalid_key_derivation',
    library: 'crypto_library',
});

/** A value that does not satisfy Wots' rules. `code` is one of `DomainErrorCode`. */
export class DomainError extends Error {
    /**
     * @param {string} code one of `DomainErrorCode`
     * @param {string} reason what is wrong, naming the rule
     */
    constructor(code, reason) {
        super(reason);
        this.name = 'DomainError';
        this.code = code;
    }
}

/** A cryptographic failure. `code` is one of `CryptoErrorCode`. */
export class CryptoError extends Error {
    /**
     * @param {string} code one of `CryptoErrorCode`
     * @param {string} reason what is wrong, naming the rule
     */
    constructor(code, reason) {
        super(reason);
        this.name = 'CryptoError';
        this.code = code;
    }
}
