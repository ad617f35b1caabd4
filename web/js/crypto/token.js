/** The stable id of an account: 16 random bytes, spelled as 26 characters of lowercase unpadded base32. */

import { compareBytes, fromBase32, randomBytes, toBase32 } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';

export class Token {
    static byteCount = 16;
    static textLength = 26;

    /**
     * @param {Uint8Array} bytes exactly 16 raw bytes
     * @throws {DomainError} `invalidToken`
     */
    constructor(bytes) {
        if (!(bytes instanceof Uint8Array) || bytes.length !== Token.byteCount) {
            throw new DomainError(DomainErrorCode.invalidToken, `a token is 16 bytes, got ${bytes?.length}`);
        }
        this.bytes = Uint8Array.from(bytes);
    }

    /**
     * Parses the 26-character lowercase base32 spelling.
     * @throws {DomainError} `invalidToken` naming the rule the text broke
     */
    static parse(text) {
        if (typeof text !== 'string' || text.length !== Token.textLength) {
            const shown = String(text).slice(0, 40);
            throw new DomainError(
                DomainErrorCode.invalidToken,
                `token "${shown}" is not 26 characters of lowercase base32`,
            );
        }
        const bytes = fromBase32(text);
        if (bytes === null || bytes.length !== Token.byteCount) {
            throw new DomainError(
                DomainErrorCode.invalidToken,
                `token "${text}" is not canonical lowercase base32 (a-z, 2-7)`,
            );
        }
        return new Token(bytes);
    }

    /** A fresh random token. */
    static random() {
        return new Token(randomBytes(Token.byteCount));
    }

    /** Whether both name the same account. Tokens are public, so no constant-time comparison is needed. */
    equals(other) {
        return other instanceof Token && compareBytes(this.bytes, other.bytes) === 0;
    }

    /** The 26-character lowercase base32 spelling. */
    toString() {
        return toBase32(this.bytes);
    }

    toJSON() {
        return this.toString();
    }
}
