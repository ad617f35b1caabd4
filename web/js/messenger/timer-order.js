/**
 * The order of disappearing-timer changes (SECURITY.md, "Typed content"): by the `sentAt` of their `settings`
 * message, then by the setter's 16 token bytes as unsigned bytes. Each side keeps the greatest change it has sent or
 * received, so both end with the same timer whatever order their messages crossed in. As ConversationHistory's
 * `setDisappearAfter` on the Swift side.
 */

import { Token } from '../crypto/token.js';

/**
 * Whether the change `(setAt, setBy)` comes after the one a contact keeps (none kept: every change does).
 * @param {{timerSetAt?: number, timerSetBy?: string}} contact
 * @param {number} setAt the `settings` message's sentAt, in milliseconds
 * @param {string} setBy the setter's token (26 characters of base32)
 */
export function isLaterTimerChange(contact, setAt, setBy) {
    const keptAt = contact.timerSetAt ?? 0;
    if (setAt !== keptAt) return setAt > keptAt;
    if (!contact.timerSetBy) return true;
    const incoming = Token.parse(setBy).bytes;
    const kept = Token.parse(contact.timerSetBy).bytes;
    for (let index = 0; index < incoming.length; index += 1) {
        if (incoming[index] !== kept[index]) return incoming[index] > kept[index];
    }
    return false;
}
