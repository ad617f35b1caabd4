"""Identities: two RSA-2048 key pairs, a token and a fingerprint (SECURITY.md, "Identity and keys").

Also the signed byte strings an identity produces for the relay: the registration proof and the login bytes.
"""

import hashlib
import os
import secrets
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa

from .encoding import b64, decode_token, encode_token, u16_bytes, unb64

REGISTER_LABEL = b"wots-register-v2\x00"
AUTH_LABEL = b"wots-auth-v1\x00"
DELETE_LABEL = b"wots-delete-v1\x00"

PSS = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
OAEP = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def spki_der(public_key):
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def fingerprint(signing_der, encryption_der):
    """SHA-256(signing SPKI DER || encryption SPKI DER), 32 raw bytes."""
    return hashlib.sha256(signing_der + encryption_der).digest()


@dataclass(frozen=True)
class PublicIdentity:
    """What anyone may know of a user: token, nickname and the two public keys (a directory entry)."""

    token: str
    signing_der: bytes
    encryption_der: bytes
    nickname: str = ""

    @property
    def token_bytes(self):
        return decode_token(self.token)

    @property
    def fingerprint(self):
        return fingerprint(self.signing_der, self.encryption_der)

    @property
    def signing_public_key(self):
        return serialization.load_der_public_key(self.signing_der)

    @property
    def encryption_public_key(self):
        return serialization.load_der_public_key(self.encryption_der)

    @classmethod
    def from_directory_entry(cls, entry):
        """From the relay's DirectoryEntry JSON; checks the fingerprint it states against the keys."""
        keys = entry["publicKeys"]
        public = cls(token=entry["token"], signing_der=unb64(keys["signing"]),
                     encryption_der=unb64(keys["encryption"]), nickname=entry.get("nickname", ""))
        if "fingerprint" in entry and entry["fingerprint"] != public.fingerprint.hex():
            raise ValueError(f"directory entry for {public.token} states a fingerprint its keys do not have")
        return public


class Identity:
    """A user with private keys. `Identity.generate()` makes fresh RSA-2048 keys (about 0.2 s each)."""

    def __init__(self, token_bytes, signing_key, encryption_key, nickname):
        self.token_bytes = token_bytes
        self.token = encode_token(token_bytes)
        self.signing_key = signing_key
        self.encryption_key = encryption_key
        self.nickname = nickname.lower()
        self.signing_der = spki_der(signing_key.public_key())
        self.encryption_der = spki_der(encryption_key.public_key())
        if self.signing_der == self.encryption_der:
            raise ValueError("the two public keys of an identity must differ")

    def __repr__(self):
        return f"Identity({self.nickname}, token {self.token}, RSA-2048 ×2)"

    @classmethod
    def generate(cls, nickname=None):
        nickname = nickname or "py-" + secrets.token_hex(6)
        return cls(
            secrets.token_bytes(16),
            rsa.generate_private_key(public_exponent=65537, key_size=2048),
            rsa.generate_private_key(public_exponent=65537, key_size=2048),
            nickname,
        )

    @property
    def fingerprint(self):
        return fingerprint(self.signing_der, self.encryption_der)

    @property
    def public(self):
        return PublicIdentity(self.token, self.signing_der, self.encryption_der, self.nickname)

    def sign(self, message):
        """RSA-PSS, SHA-256, MGF1-SHA-256, salt 32, over the whole message (no pre-hashing)."""
        return self.signing_key.sign(message, PSS, hashes.SHA256())

    def decrypt_key(self, wrapped):
        """RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) with the encryption key."""
        return self.encryption_key.decrypt(wrapped, OAEP)

    def registration_proof_bytes(self, relay_id):
        return (REGISTER_LABEL + u16_bytes(relay_id) + self.token_bytes + u16_bytes(self.nickname.encode("utf-8"))
                + u16_bytes(self.signing_der) + u16_bytes(self.encryption_der))

    def registration_request(self, relay_id, kdf=(32768, 8, 1)):
        """The `POST /v1/register` body for the relay `relay_id`. The private record holds random sealed bytes and a
        random restore key: the relay only stores them, and these tests never restore. The scrypt parameters must be
        within the bounds the relay accepts (N at least 2^15, r at least 8)."""
        n, r, p = kdf
        restore_key = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {
            "token": self.token,
            "nickname": self.nickname,
            "publicKeys": {"signing": b64(self.signing_der), "encryption": b64(self.encryption_der)},
            "privateRecord": {
                "token": self.token,
                "keyDerivation": {"salt": b64(os.urandom(16)), "n": n, "r": r, "p": p},
                "sealedPrivateKeys": b64(b"\x01" + os.urandom(12 + 64 + 16)),
                "secretVerifier": b64(restore_key),
            },
            "proof": b64(self.sign(self.registration_proof_bytes(relay_id))),
        }

    def deletion_bytes(self, relay_id, nonce):
        return DELETE_LABEL + u16_bytes(relay_id) + u16_bytes(nonce) + self.token_bytes

    def login_bytes(self, relay_id, nonce):
        return AUTH_LABEL + u16_bytes(relay_id) + u16_bytes(nonce) + self.token_bytes
