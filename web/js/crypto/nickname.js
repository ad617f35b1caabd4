/** The human name of an account: 3–32 characters of `a-z 0-9 _ . -` after lower-casing, unique ignoring case. */

import { DomainError, DomainErrorCode } from './errors.js';

export class Nickname {
    static allowedLength = Object.freeze({ minimum: 3, maximum: 32 });

    /**
     * Lower-cases and validates a nickname.
     * @param {string} text
     * @throws {DomainError} `invalidNickname` with the rule that was broken
     */
    constructor(text) {
        const lowered = String(text).toLowerCase();
        const count = [...lowered].length;
        const { minimum, maximum } = Nickname.allowedLength;
        if (count < minimum || count > maximum) {
            const size = count < minimum ? 'too short' : 'too long';
            const shown = String(text).slice(0, 40);
            throw new DomainError(
                DomainErrorCode.invalidNickname,
                `nickname "${shown}" is ${size} (${minimum}–${maximum} characters)`,
            );
        }
        const bad = [...lowered].find((character) => !/^[a-z0-9_.-]$/.test(character));
        if (bad !== undefined) {
            const escaped = `\\u{${bad.codePointAt(0).toString(16)}}`;
            throw new DomainError(
                DomainErrorCode.invalidNickname,
                `nickname "${text}" contains "${escaped}" (allowed: a-z 0-9 _ . -)`,
            );
        }
        /** The lower-cased spelling, which is also the uniqueness key. */
        this.value = lowered;
    }

    toString() {
        return this.value;
    }

    toJSON() {
        return this.value;
    }
}
