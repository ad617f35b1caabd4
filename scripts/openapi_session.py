#!/usr/bin/env python3
"""Registers the probe account on a fresh relay and prints a bearer session, using only SECURITY.md's byte layouts.

Used by scripts/openapi-check.sh so schemathesis can reach the authenticated routes, and the restore routes with the
examples in schema/openapi.yaml: the probe's nickname, token and secret are fixed (the relay is new for every run).
Also an independent check of the registration-proof (v2, naming the relay id), restore-key, restore-proof and login
layouts: a relay that disagreed with SECURITY.md would refuse them.
"""
import base64
import hashlib
import json
import os
import struct
import sys
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa


def get(base, path):
    with urllib.request.urlopen(base + path) as response:
        return json.loads(response.read())


def post(base, path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def spki(key):
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def pss_sign(key, message):
    return key.sign(message, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())


def u16(data):
    return struct.pack(">H", len(data)) + data


# The probe account; schema/openapi.yaml's examples name the same nickname, token and authentication key.
NICKNAME = "openapi-probe"
SECRET = b"openapi probe secret"
TOKEN_BYTES = hashlib.sha256(b"openapi-probe").digest()[:16]
SALT = hashlib.sha256(b"openapi-probe salt").digest()[:16]
SCRYPT = {"n": 32768, "r": 8, "p": 1}


def authentication_key():
    return hashlib.scrypt(SECRET, salt=SALT, dklen=64, maxmem=64 << 20, **SCRYPT)[32:]


def restore_key():
    """Ed25519 key whose seed is SHA-256("wots-restore-key-v1" || 0x00 || authenticationKey)."""
    seed = hashlib.sha256(b"wots-restore-key-v1\x00" + authentication_key()).digest()
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed)


def main():
    base = sys.argv[1]
    signing = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    encryption = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token_bytes = TOKEN_BYTES
    token = base64.b32encode(token_bytes).decode().lower().rstrip("=")
    nickname = NICKNAME
    signing_der, encryption_der = spki(signing), spki(encryption)
    relay_id = base64.b64decode(get(base, "/v1/relay")["relayID"])
    proof = pss_sign(signing, b"wots-register-v2\x00" + u16(relay_id) + token_bytes + u16(nickname.encode())
                     + u16(signing_der) + u16(encryption_der))
    b64 = lambda data: base64.b64encode(data).decode()
    verifier = restore_key().public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    post(base, "/v1/register", {
        "token": token, "nickname": nickname,
        "publicKeys": {"signing": b64(signing_der), "encryption": b64(encryption_der)},
        "privateRecord": {
            "token": token,
            "keyDerivation": {"salt": b64(SALT), **SCRYPT},
            "sealedPrivateKeys": b64(os.urandom(64)),
            "secretVerifier": b64(verifier),
        },
        "proof": b64(proof),
    })
    challenge = post(base, "/v1/auth/challenge", {})
    nonce = base64.b64decode(challenge["nonce"])
    restore_bytes = b"wots-restore-v1\x00" + u16(relay_id) + u16(nonce) + u16(nickname.encode())
    restored = post(base, "/v1/restore", {"nickname": nickname, "nonce": challenge["nonce"],
                                          "signature": b64(restore_key().sign(restore_bytes))})
    assert restored["entry"]["token"] == token, "the relay restored another account"
    challenge = post(base, "/v1/auth/challenge", {})
    relay_id, nonce = base64.b64decode(challenge["relayID"]), base64.b64decode(challenge["nonce"])
    signature = pss_sign(signing, b"wots-auth-v1\x00" + u16(relay_id) + u16(nonce) + token_bytes)
    session = post(base, "/v1/auth/session", {"token": token, "nonce": challenge["nonce"], "signature": b64(signature)})
    print(session["session"])


if __name__ == "__main__":
    main()
