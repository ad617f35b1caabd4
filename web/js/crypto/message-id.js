/**
 * Message ids: version 7 UUIDs (RFC 9562), carried as their 16 raw bytes in RFC 4122 order. The first 48 bits are the
 * Unix time in milliseconds, the rest (but the version and variant) random: the relay keeps messages by (sender, id),
 * and ids that grow with time land where the sender's last one did. The time is the header's `sentAt`, in clear
 * already.
 */

import { fromHex, randomBytes, toHex } from './bytes.js';

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A fresh version-7 UUID made at `now` (ms since 1970), in the uppercase text form Swift's `UUID` writes. */
export function newMessageID(now = Date.now()) {
    const bytes = randomBytes(16);
    let milliseconds = Math.min(Math.max(0, Math.floor(now)), 2 ** 48 - 1); // clamped, as the Swift client does
    for (let index = 5; index >= 0; index -= 1) {
        bytes[index] = milliseconds % 256;
        milliseconds = Math.floor(milliseconds / 256);
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x70; // version 7
    bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
    return messageIDFromBytes(bytes);
}

/** The 16 raw bytes of a UUID's text form (either case), or null when it is not one. */
export function messageIDBytes(text) {
    if (typeof text !== 'string' || !uuidPattern.test(text)) return null;
    return fromHex(text.replaceAll('-', ''));
}

/** The uppercase text form of 16 UUID bytes. */
export function messageIDFromBytes(bytes) {
    const hex = toHex(bytes).toUpperCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
