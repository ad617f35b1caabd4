#!/usr/bin/env python3
"""Open Wots envelope test vectors (v1 and v2) using only SECURITY.md and Python's `cryptography` package.

Usage: scripts/check_envelope_vector.py [VECTOR.json ...]   (default: schema/vectors/envelope-v1.json and -v2.json)

Exits 0 when each envelope parses, its JSON form matches its binary form, the signature verifies and it decrypts to
the expected plaintext (for v2, typed content whose disappearAfter agrees with the header's expiresAt); exits 1 with
a message naming the first mismatch otherwise.
"""

import base64
import hashlib
import json
import struct
import sys
import uuid
from pathlib import Path

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

# SECURITY.md, "Envelopes": the version byte comes first and decides the header's size and the signature's label.
HEADER_SIZES = {1: 121, 2: 129}
MAXIMUM_TIME = (1 << 53) - 1


def envelope_label(version):
    return b"wots-envelope-v%d\x00" % version


class Mismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


class Reader:
    def __init__(self, data):
        self.data = data
        self.offset = 0

    def take(self, count, what):
        expect(self.offset + count <= len(self.data), f"envelope ends inside {what}")
        chunk = self.data[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def u16_bytes(self, what):
        (length,) = struct.unpack(">H", self.take(2, f"the length of {what}"))
        return self.take(length, what)

    def u32_bytes(self, what):
        (length,) = struct.unpack(">I", self.take(4, f"the length of {what}"))
        return self.take(length, what)


def base32_token(raw):
    return base64.b32encode(raw).decode().rstrip("=").lower()


def parse(serialized):
    expect(len(serialized) > 0, "envelope is empty")
    version = serialized[0]
    expect(version in HEADER_SIZES, f"unsupported version {version} (only 1 and 2)")
    reader = Reader(serialized)
    header = reader.take(HEADER_SIZES[version], "the header")
    wrapped_key = reader.u16_bytes("the wrapped key")
    nonce = reader.u16_bytes("the nonce")
    ciphertext = reader.u32_bytes("the ciphertext")
    signed_part = serialized[:reader.offset]
    signature = reader.u16_bytes("the signature")
    expect(reader.offset == len(serialized), f"{len(serialized) - reader.offset} trailing bytes after the signature")
    fields = {
        "version": header[0],
        "id": uuid.UUID(bytes=header[1:17]),
        "sender": header[17:33],
        "senderFingerprint": header[33:65],
        "recipient": header[65:81],
        "recipientFingerprint": header[81:113],
        "sentAt": struct.unpack(">Q", header[113:121])[0],
    }
    if version == 2:
        fields["expiresAt"] = struct.unpack(">Q", header[121:129])[0]
    return header, fields, wrapped_key, nonce, ciphertext, signed_part, signature


def unpad(padded):
    expect(len(padded) > 0 and len(padded) % 256 == 0, f"padded plaintext is {len(padded)} bytes, not a multiple of 256")
    stripped = padded.rstrip(b"\x00")
    expect(stripped.endswith(b"\x80"), "padding does not end in 0x80 followed by zero bytes")
    expect(len(padded) - (len(stripped) - 1) <= 256, "padding is longer than 256 bytes")
    return stripped[:-1]


def fingerprint(public_keys):
    return hashlib.sha256(public_keys["signing"] + public_keys["encryption"]).digest()


def check(vector):
    b64 = base64.b64decode
    sender_keys = {k: b64(v) for k, v in vector["sender"]["publicKeys"].items()}
    recipient_keys = {k: b64(v) for k, v in vector["recipient"]["publicKeys"].items()}
    recipient_private = serialization.load_der_private_key(b64(vector["recipient"]["encryptionPrivateKey"]), None)
    sender_signing_public = serialization.load_der_public_key(sender_keys["signing"])
    expect(sender_signing_public.key_size == 2048, "sender signing key is not RSA-2048")
    expect(
        recipient_private.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        ) == recipient_keys["encryption"],
        "recipient encryption private key does not match its published public key",
    )

    serialized = b64(vector["serialized"])
    header, fields, wrapped_key, nonce, ciphertext, signed_part, signature = parse(serialized)

    # Opening, in SECURITY.md's order.
    version = fields["version"]
    expect(version in (1, 2), f"version {version} is not 1 or 2")
    expect(fields["sentAt"] <= MAXIMUM_TIME, "sentAt is beyond 2^53 - 1")
    if version == 2:
        expires_at = fields["expiresAt"]
        expect(expires_at == 0 or fields["sentAt"] < expires_at <= MAXIMUM_TIME,
               f"expiresAt {expires_at} is neither 0 nor after sentAt and at most 2^53 - 1")
    expect(base32_token(fields["recipient"]) == vector["recipient"]["token"], "recipient token is not the recipient")
    expect(fields["recipientFingerprint"] == fingerprint(recipient_keys), "recipient fingerprint is not the recipient's")
    expect(fields["senderFingerprint"] == fingerprint(sender_keys), "sender fingerprint is not the sender keys'")
    expect(fields["senderFingerprint"].hex() == vector["sender"]["fingerprint"], "sender fingerprint differs from the vector's")
    try:
        sender_signing_public.verify(
            signature,
            envelope_label(version) + signed_part,
            padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32),
            hashes.SHA256(),
        )
    except InvalidSignature:
        raise Mismatch("RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) signature does not verify")
    try:
        content_key = recipient_private.decrypt(
            wrapped_key,
            padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None),
        )
    except ValueError:
        raise Mismatch("RSA-OAEP (SHA-256, MGF1-SHA-256) does not unwrap the content key")
    expect(len(content_key) == 32, f"content key is {len(content_key)} bytes, not 32")
    expect(len(nonce) == 12, f"nonce is {len(nonce)} bytes, not 12")
    try:
        padded = AESGCM(content_key).decrypt(nonce, ciphertext, header)
    except InvalidTag:
        raise Mismatch("AES-256-GCM tag does not match (header as associated data)")
    plaintext = unpad(padded)
    expect(plaintext == vector["plaintext"].encode("utf-8"), "decrypted plaintext differs from the expected plaintext")
    if version == 2:
        check_content(plaintext, fields, vector)

    # The JSON form says the same as the binary form.
    form = vector["envelope"]
    expect(form["version"] == fields["version"], "JSON version differs")
    expect(uuid.UUID(form["id"]) == fields["id"], "JSON id differs")
    expect(form["sender"] == base32_token(fields["sender"]), "JSON sender differs")
    expect(form["senderFingerprint"] == fields["senderFingerprint"].hex(), "JSON senderFingerprint differs")
    expect(form["recipient"] == base32_token(fields["recipient"]), "JSON recipient differs")
    expect(form["recipientFingerprint"] == fields["recipientFingerprint"].hex(), "JSON recipientFingerprint differs")
    expect(form["sentAt"] == fields["sentAt"], "JSON sentAt differs")
    if version == 2:
        expect(form.get("expiresAt") == fields["expiresAt"], "JSON expiresAt is missing or differs")
    else:
        expect("expiresAt" not in form, "a v1 JSON form carries expiresAt")
    for key, value in (("wrappedKey", wrapped_key), ("nonce", nonce), ("ciphertext", ciphertext), ("signature", signature)):
        expect(b64(form[key]) == value, f"JSON {key} differs")

    # The safety number, computed from SECURITY.md.
    low, high = sorted([fingerprint(sender_keys), fingerprint(recipient_keys)])
    digest = hashlib.sha512(b"wots-safety-number-v1\x00" + low + high).digest()
    groups = [f"{int.from_bytes(digest[5 * i:5 * i + 5], 'big') % 100000:05d}" for i in range(12)]
    expect(" ".join(groups) == vector["safetyNumber"], "safety number differs")
    return fields, plaintext


def check_content(plaintext, fields, vector):
    """A v2 plaintext is one UTF-8 JSON object with a string `type`; a non-zero `disappearAfter` (seconds) must make
    the header's expiresAt exactly sentAt + 1000 x disappearAfter, and without one expiresAt must be 0."""
    try:
        content = json.loads(plaintext.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Mismatch("v2 plaintext is not UTF-8 JSON")
    expect(isinstance(content, dict) and isinstance(content.get("type"), str), "v2 content has no string type")
    expect(len(plaintext) <= 60 * 1024, "v2 content is larger than 60 KiB")
    disappear_after = content.get("disappearAfter", 0)
    expect(isinstance(disappear_after, int) and 0 <= disappear_after <= 31_536_000,
           "disappearAfter is not a whole number of seconds from 0 to 365 days")
    expected = fields["sentAt"] + 1000 * disappear_after if disappear_after else 0
    expect(fields["expiresAt"] == expected, f"expiresAt {fields['expiresAt']} is not {expected} "
           "(sentAt + 1000 x disappearAfter, or 0 without a timer)")
    if "content" in vector:
        expect(content == vector["content"], "decrypted content differs from the vector's content")


def main():
    vectors = Path(__file__).resolve().parent.parent / "schema" / "vectors"
    paths = [Path(arg) for arg in sys.argv[1:]] or [vectors / "envelope-v1.json", vectors / "envelope-v2.json"]
    for path in paths:
        try:
            vector = json.loads(path.read_text(encoding="utf-8"))
            fields, plaintext = check(vector)
        except Mismatch as mismatch:
            print(f"{path}: MISMATCH: {mismatch}", file=sys.stderr)
            return 1
        except (KeyError, ValueError, TypeError) as error:
            print(f"{path}: MALFORMED VECTOR: {error!r}", file=sys.stderr)
            return 1
        print(f"{path}: OK — v{fields['version']} message {fields['id']} opens to {len(plaintext)} bytes of the "
              "expected plaintext")
    return 0


if __name__ == "__main__":
    sys.exit(main())
