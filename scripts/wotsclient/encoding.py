"""Byte encodings from SECURITY.md: big-endian integers, length-prefixed byte strings, tokens, base64."""

import base64
import struct


def u16(value):
    return struct.pack(">H", value)


def u32(value):
    return struct.pack(">I", value)


def u64(value):
    return struct.pack(">Q", value)


def u16_bytes(data):
    if len(data) > 0xFFFF:
        raise ValueError(f"{len(data)} bytes do not fit a u16 length")
    return u16(len(data)) + data


def u32_bytes(data):
    return u32(len(data)) + data


def encode_token(raw):
    """16 raw bytes as 26 characters of lowercase RFC 4648 base32 without padding."""
    if len(raw) != 16:
        raise ValueError(f"a token is 16 bytes, not {len(raw)}")
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()


def decode_token(text):
    """The 16 raw bytes of a 26-character token; raises ValueError otherwise."""
    if len(text) != 26 or text != text.lower():
        raise ValueError(f"token {text[:40]!r} is not 26 lowercase base32 characters")
    raw = base64.b32decode(text.upper() + "======")
    if encode_token(raw) != text:
        raise ValueError(f"token {text!r} is not canonical base32")
    return raw


def b64(data):
    return base64.b64encode(data).decode("ascii")


def unb64(text):
    return base64.b64decode(text, validate=True)


class Reader:
    """Reads a binary layout front to back; every short read names what was missing."""

    def __init__(self, data):
        self.data = data
        self.offset = 0

    def take(self, count, what):
        if self.offset + count > len(self.data):
            raise ValueError(f"input ends inside {what}")
        chunk = self.data[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def u16_bytes(self, what):
        (length,) = struct.unpack(">H", self.take(2, f"the length of {what}"))
        return self.take(length, what)

    def u32_bytes(self, what):
        (length,) = struct.unpack(">I", self.take(4, f"the length of {what}"))
        return self.take(length, what)

    def at_end(self):
        return self.offset == len(self.data)
