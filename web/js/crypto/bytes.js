/**
 * Byte helpers for the canonical layouts in SECURITY.md: spellings (hex, base64, token base32), big-endian
 * writers and readers, concatenation, comparison and randomness. Everything is a `Uint8Array`.
 */

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 bytes of `text` (no normalisation; callers that need NFC normalise first). */
export function utf8(text) {
    return utf8Encoder.encode(text);
}

/**
 * Decodes UTF-8, refusing invalid sequences.
 * @throws {TypeError} when `bytes` are not valid UTF-8
 */
export function fromUTF8(bytes) {
    return utf8Decoder.decode(bytes);
}

/** A domain-separation label: the ASCII text followed by one zero byte (SECURITY.md, "Signatures"). */
export function label(text) {
    return concatBytes(utf8(text), new Uint8Array(1));
}

/** Lowercase hex, two digits per byte. */
export function toHex(bytes) {
    let text = '';
    for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
    return text;
}

/** Parses hex digits (either case); returns null for an odd length or a non-hex character. */
export function fromHex(text) {
    if (typeof text !== 'string' || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return null;
    const bytes = new Uint8Array(text.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
    return bytes;
}

/** Standard base64 with padding (RFC 4648 §4), the spelling of binary fields in the relay's JSON. */
export function toBase64(bytes) {
    let binary = '';
    // Chunked so String.fromCharCode never gets more arguments than an engine allows.
    for (let i = 0; i < bytes.length; i += 0x8000) {
        binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
}

/** URL-safe base64 without padding (RFC 4648 §5), as JWK spells big integers. */
export function toBase64URL(bytes) {
    return toBase64(bytes).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Parses URL-safe base64 without padding (a JWK field); returns null for any other spelling. */
export function fromBase64URL(text) {
    if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
    const padded = text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4);
    return fromBase64(padded);
}

/** Parses canonical standard base64 with padding; returns null for any other spelling. */
export function fromBase64(text) {
    if (typeof text !== 'string' || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
    let binary;
    try {
        binary = atob(text);
    } catch {
        return null;
    }
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    // Non-zero unused bits would give one value several spellings.
    return toBase64(bytes) === text ? bytes : null;
}

const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lowercase, without padding: the spelling of tokens. */
export function toBase32(bytes) {
    let text = '';
    let buffer = 0;
    let bits = 0;
    for (const byte of bytes) {
        buffer = ((buffer << 8) | byte) & 0xffff;
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            text += base32Alphabet[(buffer >>> bits) & 0x1f];
        }
    }
    if (bits > 0) text += base32Alphabet[(buffer << (5 - bits)) & 0x1f];
    return text;
}

/** Parses canonical lowercase unpadded base32 (unused trailing bits zero); returns null for anything else. */
export function fromBase32(text) {
    if (typeof text !== 'string') return null;
    const output = [];
    let buffer = 0;
    let bits = 0;
    for (const character of text) {
        const index = base32Alphabet.indexOf(character);
        if (index < 0 || character.length !== 1) return null;
        buffer = ((buffer << 5) | index) & 0xffff;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            output.push((buffer >>> bits) & 0xff);
        }
    }
    if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) return null;
    return Uint8Array.from(output);
}

/** Concatenates byte arrays into a new one. */
export function concatBytes(...parts) {
    let length = 0;
    for (const part of parts) length += part.length;
    const result = new Uint8Array(length);
    let offset = 0;
    for (const part of parts) {
        result.set(part, offset);
        offset += part.length;
    }
    return result;
}

/**
 * Whether two byte arrays are equal, looking at every byte whatever the first difference, for secrets and
 * fingerprints. Lengths are not secret. JavaScript gives no timing guarantee; this only avoids an early exit.
 */
export function constantTimeEqual(a, b) {
    if (a.length !== b.length) return false;
    let difference = 0;
    for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
    return difference === 0;
}

/** Lexicographic comparison of two byte arrays: negative, zero or positive. */
export function compareBytes(a, b) {
    const count = Math.min(a.length, b.length);
    for (let i = 0; i < count; i++) {
        if (a[i] !== b[i]) return a[i] - b[i];
    }
    return a.length - b.length;
}

/** `count` bytes from the platform CSPRNG (WebCrypto `getRandomValues`). */
export function randomBytes(count) {
    const bytes = new Uint8Array(count);
    // getRandomValues fills at most 65,536 bytes per call.
    for (let offset = 0; offset < count; offset += 65536) {
        crypto.getRandomValues(bytes.subarray(offset, Math.min(count, offset + 65536)));
    }
    return bytes;
}

/** Overwrites a buffer that held key material once it is no longer needed. */
export function wipe(bytes) {
    if (bytes) bytes.fill(0);
}

/** Appends big-endian integers and length-prefixed fields, for the canonical byte layouts in SECURITY.md. */
export class ByteWriter {
    #parts = [];

    /** Appends raw bytes. */
    write(bytes) {
        this.#parts.push(Uint8Array.from(bytes));
        return this;
    }

    /** Appends a `u8`. */
    writeU8(value) {
        return this.#writeInteger(value, 1, 0xff);
    }

    /** Appends a big-endian `u16`. */
    writeU16(value) {
        return this.#writeInteger(value, 2, 0xffff);
    }

    /** Appends a big-endian `u32`. */
    writeU32(value) {
        return this.#writeInteger(value, 4, 0xffffffff);
    }

    /**
     * Appends a big-endian `u64` given as a BigInt.
     * @throws {RangeError} when the value is not in 0…2^64-1
     */
    writeU64(value) {
        if (typeof value !== 'bigint' || value < 0n || value > 0xffffffffffffffffn) {
            throw new RangeError(`${value} is not a u64`);
        }
        const bytes = new Uint8Array(8);
        new DataView(bytes.buffer).setBigUint64(0, value, false);
        this.#parts.push(bytes);
        return this;
    }

    /** Appends `u16(len(x)) || x`. @throws {RangeError} when `x` is longer than 65,535 bytes */
    writeU16Prefixed(bytes) {
        return this.writeU16(bytes.length).write(bytes);
    }

    /** Appends `u32(len(x)) || x`. */
    writeU32Prefixed(bytes) {
        return this.writeU32(bytes.length).write(bytes);
    }

    /** Everything written, as one array. */
    get bytes() {
        return concatBytes(...this.#parts);
    }

    #writeInteger(value, size, maximum) {
        if (!Number.isInteger(value) || value < 0 || value > maximum) {
            throw new RangeError(`${value} does not fit in ${size * 8} bits`);
        }
        const bytes = new Uint8Array(size);
        for (let i = size - 1, rest = value; i >= 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
        this.#parts.push(bytes);
        return this;
    }
}

/** Reads what `ByteWriter` wrote; every read is bounds-checked and reports a short input as null. */
export class ByteReader {
    #bytes;
    #offset = 0;

    /** @param {Uint8Array} bytes */
    constructor(bytes) {
        this.#bytes = bytes;
    }

    /** Bytes read so far. */
    get offset() {
        return this.#offset;
    }

    /** Bytes not yet read. */
    get remaining() {
        return this.#bytes.length - this.#offset;
    }

    /** The next `count` bytes (a copy), or null when fewer remain. */
    read(count) {
        if (count < 0 || count > this.remaining) return null;
        const chunk = this.#bytes.slice(this.#offset, this.#offset + count);
        this.#offset += count;
        return chunk;
    }

    /** A `u8`, or null. */
    readU8() {
        const raw = this.read(1);
        return raw && raw[0];
    }

    /** A big-endian `u16`, or null. */
    readU16() {
        const raw = this.read(2);
        return raw && (raw[0] << 8) | raw[1];
    }

    /** A big-endian `u32`, or null. */
    readU32() {
        const raw = this.read(4);
        return raw && new DataView(raw.buffer).getUint32(0, false);
    }

    /** A big-endian `u64` as a BigInt, or null. */
    readU64() {
        const raw = this.read(8);
        return raw && new DataView(raw.buffer).getBigUint64(0, false);
    }

    /** `u16(len) || bytes`, or null when the input ends inside it. */
    readU16Prefixed() {
        const count = this.readU16();
        return count === null ? null : this.read(count);
    }

    /** `u32(len) || bytes`, or null when the input ends inside it. */
    readU32Prefixed() {
        const count = this.readU32();
        return count === null ? null : this.read(count);
    }
}
