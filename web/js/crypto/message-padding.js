/**
 * Pads plaintexts to a multiple of 256 bytes so sizes leak only in 256-byte steps:
 * `plaintext || 0x80 || 0x00…`, always at least one byte of padding.
 */

import { CryptoError, CryptoErrorCode } from './errors.js';

export const MessagePadding = Object.freeze({
    blockSize: 256,

    /** Pads to the next multiple of 256 bytes (a 256-byte message pads to 512). */
    pad(plaintext) {
        const size = MessagePadding.blockSize;
        const padded = new Uint8Array((Math.floor(plaintext.length / size) + 1) * size);
        padded.set(plaintext);
        padded[plaintext.length] = 0x80;
        return padded;
    },

    /**
     * Strips trailing zero bytes, then one 0x80.
     * @throws {CryptoError} `malformed` when the length is not a non-zero multiple of 256, the marker is missing,
     *   or the padding is longer than 256 bytes
     */
    unpad(padded) {
        const size = MessagePadding.blockSize;
        if (padded.length === 0 || padded.length % size !== 0) {
            throw new CryptoError(
                CryptoErrorCode.malformed,
                `padded plaintext is ${padded.length} bytes (must be a multiple of 256)`,
            );
        }
        let marker = padded.length - 1;
        while (marker >= 0 && padded[marker] === 0) marker--;
        if (marker < 0 || padded[marker] !== 0x80) {
            throw new CryptoError(
                CryptoErrorCode.malformed,
                'plaintext padding does not end in 0x80 followed by zero bytes',
            );
        }
        if (padded.length - marker > size) {
            throw new CryptoError(CryptoErrorCode.malformed, 'plaintext padding is longer than 256 bytes');
        }
        return padded.slice(0, marker);
    },
});
