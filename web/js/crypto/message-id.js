/** Message ids: random (version 4) UUIDs, carried as their 16 raw bytes in RFC 4122 order. */

import { fromHex, randomBytes, toHex } from './bytes.js';

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A fresh random version-4 UUID, in the uppercase text form Swift's `UUID` writes. */
export function newMessageID() {
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
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
