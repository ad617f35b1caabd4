"""Envelope v1: sealing and opening exactly as SECURITY.md ("Envelopes") lays them out."""

import os
import struct
import time
import uuid
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .encoding import Reader, b64, decode_token, encode_token, u16_bytes, u32_bytes, u64, unb64
from .identity import OAEP, PSS

ENVELOPE_LABEL = b"wots-envelope-v1\x00"
VERSION = 1
HEADER_SIZE = 121
PAD_BLOCK = 256


class OpenError(Exception):
    """Why an envelope did not open; `code` is SECURITY.md's reason in the relay's error-code spelling."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code


@dataclass(frozen=True)
class Envelope:
    version: int
    message_id: uuid.UUID
    sender: str
    sender_fingerprint: bytes
    recipient: str
    recipient_fingerprint: bytes
    sent_at: int
    wrapped_key: bytes
    nonce: bytes
    ciphertext: bytes
    signature: bytes

    @property
    def header(self):
        """The 121-byte header: version, id, sender, sender fingerprint, recipient, recipient fingerprint, sent at."""
        return (bytes([self.version]) + self.message_id.bytes + decode_token(self.sender) + self.sender_fingerprint
                + decode_token(self.recipient) + self.recipient_fingerprint + u64(self.sent_at))

    @property
    def signed_bytes(self):
        return ENVELOPE_LABEL + self.header + u16_bytes(self.wrapped_key) + u16_bytes(self.nonce) + u32_bytes(
            self.ciphertext)

    def serialize(self):
        return self.signed_bytes[len(ENVELOPE_LABEL):] + u16_bytes(self.signature)

    @property
    def ref(self):
        """(sender, id): what identifies a message to the relay and to a recipient."""
        from .acks import MessageRef
        return MessageRef(self.sender, str(self.message_id))

    def to_json(self):
        return {
            "version": self.version,
            "id": str(self.message_id).upper(),
            "sender": self.sender,
            "senderFingerprint": self.sender_fingerprint.hex(),
            "recipient": self.recipient,
            "recipientFingerprint": self.recipient_fingerprint.hex(),
            "sentAt": self.sent_at,
            "wrappedKey": b64(self.wrapped_key),
            "nonce": b64(self.nonce),
            "ciphertext": b64(self.ciphertext),
            "signature": b64(self.signature),
        }

    @classmethod
    def from_json(cls, form):
        return cls(
            version=form["version"],
            message_id=uuid.UUID(form["id"]),
            sender=form["sender"],
            sender_fingerprint=bytes.fromhex(form["senderFingerprint"]),
            recipient=form["recipient"],
            recipient_fingerprint=bytes.fromhex(form["recipientFingerprint"]),
            sent_at=form["sentAt"],
            wrapped_key=unb64(form["wrappedKey"]),
            nonce=unb64(form["nonce"]),
            ciphertext=unb64(form["ciphertext"]),
            signature=unb64(form["signature"]),
        )

    @classmethod
    def parse(cls, serialized):
        reader = Reader(serialized)
        header = reader.take(HEADER_SIZE, "the header")
        wrapped_key = reader.u16_bytes("the wrapped key")
        nonce = reader.u16_bytes("the nonce")
        ciphertext = reader.u32_bytes("the ciphertext")
        signature = reader.u16_bytes("the signature")
        if not reader.at_end():
            raise ValueError(f"{len(serialized) - reader.offset} trailing bytes after the signature")
        return cls(
            version=header[0],
            message_id=uuid.UUID(bytes=header[1:17]),
            sender=encode_token(header[17:33]),
            sender_fingerprint=header[33:65],
            recipient=encode_token(header[65:81]),
            recipient_fingerprint=header[81:113],
            sent_at=struct.unpack(">Q", header[113:121])[0],
            wrapped_key=wrapped_key,
            nonce=nonce,
            ciphertext=ciphertext,
            signature=signature,
        )


def pad(plaintext):
    """plaintext || 0x80 || 0x00 × k, the smallest k ≥ 0 reaching a multiple of 256."""
    padded = plaintext + b"\x80"
    return padded + b"\x00" * (-len(padded) % PAD_BLOCK)


def unpad(padded):
    if len(padded) == 0 or len(padded) % PAD_BLOCK != 0:
        raise OpenError("malformed", f"padded plaintext is {len(padded)} bytes, not a non-zero multiple of 256")
    stripped = padded.rstrip(b"\x00")
    if not stripped.endswith(b"\x80") or len(padded) - (len(stripped) - 1) > PAD_BLOCK:
        raise OpenError("malformed", "padding is not 0x80 followed by at most 255 zero bytes")
    return stripped[:-1]


def seal(sender, recipient, plaintext, message_id=None, sent_at=None):
    """Seals `plaintext` (bytes) from `sender` (an Identity) to `recipient` (a PublicIdentity)."""
    key = AESGCM.generate_key(bit_length=256)
    nonce = os.urandom(12)
    unsigned = Envelope(
        version=VERSION,
        message_id=message_id or uuid.uuid4(),
        sender=sender.token,
        sender_fingerprint=sender.fingerprint,
        recipient=recipient.token,
        recipient_fingerprint=recipient.fingerprint,
        sent_at=int(time.time() * 1000) if sent_at is None else sent_at,
        wrapped_key=recipient.encryption_public_key.encrypt(key, OAEP),
        nonce=nonce,
        ciphertext=b"",
        signature=b"",
    )
    header = unsigned.header
    ciphertext = AESGCM(key).encrypt(nonce, pad(plaintext), header)
    with_ciphertext = _replace(unsigned, ciphertext=ciphertext)
    return _replace(with_ciphertext, signature=sender.sign(with_ciphertext.signed_bytes))


def open_envelope(opener, envelope, sender_public):
    """Opens `envelope` for `opener` (an Identity), knowing the sender's keys (a PublicIdentity), in SECURITY.md's
    order; returns the plaintext bytes or raises OpenError."""
    if envelope.version != VERSION:
        raise OpenError("unsupported_version", f"version {envelope.version}")
    if envelope.recipient != opener.token or envelope.recipient_fingerprint != opener.fingerprint:
        raise OpenError("not_for_me", f"addressed to {envelope.recipient}")
    if envelope.sender != sender_public.token or envelope.sender_fingerprint != sender_public.fingerprint:
        raise OpenError("sender_key_mismatch", f"sender {envelope.sender}'s fingerprint is not the one known")
    try:
        sender_public.signing_public_key.verify(envelope.signature, envelope.signed_bytes, PSS, hashes.SHA256())
    except InvalidSignature:
        raise OpenError("bad_signature", "RSA-PSS signature does not verify") from None
    try:
        key = opener.decrypt_key(envelope.wrapped_key)
        if len(key) != 32 or len(envelope.nonce) != 12:
            raise ValueError("content key or nonce has the wrong size")
        padded = AESGCM(key).decrypt(envelope.nonce, envelope.ciphertext, envelope.header)
    except (ValueError, InvalidTag):
        raise OpenError("decryption_failed", "content key or AES-256-GCM tag does not check") from None
    return unpad(padded)


def _replace(envelope, **changes):
    from dataclasses import replace
    return replace(envelope, **changes)
