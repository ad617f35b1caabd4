#!/usr/bin/env python3
"""An independent Wots implementation for the web tests, written from SECURITY.md with Python's `cryptography`.

Usage: wots_reference.py COMMAND < request.json > response.json

Binary values are standard base64 in both directions. Each command is one function below; an expected refusal is
answered as {"error": "<code>"} with the code SECURITY.md names, anything else is a crash (exit 1).
"""

import base64
import hashlib
import json
import os
import struct
import sys
import unicodedata
import uuid

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PSS = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
OAEP = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def b64(data):
    return base64.b64encode(data).decode()


def unb64(text):
    return base64.b64decode(text, validate=True)


def token_bytes(text):
    raw = base64.b32decode(text.upper() + "=" * (-len(text) % 8))
    assert len(raw) == 16
    return raw


def u16_bytes(data):
    return struct.pack(">H", len(data)) + data


def u32_bytes(data):
    return struct.pack(">I", len(data)) + data


def fingerprint(signing_spki, encryption_spki):
    return hashlib.sha256(signing_spki + encryption_spki).digest()


def private_key(der_b64):
    return serialization.load_der_private_key(unb64(der_b64), None)


def public_key(der_b64):
    return serialization.load_der_public_key(unb64(der_b64))


def spki(key):
    if hasattr(key, "public_key"):
        key = key.public_key()
    return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def pkcs8(key):
    return key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


# Signed byte strings, from SECURITY.md's layouts.

def challenge_bytes(label, req, subject):
    return label + b"\x00" + u16_bytes(unb64(req["relayID"])) + u16_bytes(unb64(req["nonce"])) + subject


def login_bytes(req):
    return challenge_bytes(b"wots-auth-v1", req, token_bytes(req["token"]))


def deletion_bytes(req):
    return challenge_bytes(b"wots-delete-v1", req, token_bytes(req["token"]))


def restore_bytes(req):
    return challenge_bytes(b"wots-restore-v1", req, u16_bytes(req["nickname"].lower().encode("utf-8")))


def registration_bytes(req):
    keys = req["publicKeys"]
    return (b"wots-register-v2\x00" + u16_bytes(unb64(req["relayID"])) + token_bytes(req["token"])
            + u16_bytes(req["nickname"].lower().encode("utf-8"))
            + u16_bytes(unb64(keys["signing"])) + u16_bytes(unb64(keys["encryption"])))


def rotation_bytes(req):
    old = req["oldPublicKeys"]
    new = req["newPublicKeys"]
    old_fingerprint = fingerprint(unb64(old["signing"]), unb64(old["encryption"]))
    return (b"wots-rotate-v1\x00" + token_bytes(req["token"]) + old_fingerprint
            + u16_bytes(unb64(new["signing"])) + u16_bytes(unb64(new["encryption"])))


SIGNED_BYTES = {
    "login": login_bytes,
    "deletion": deletion_bytes,
    "restore": restore_bytes,
    "registration": registration_bytes,
    "rotation": rotation_bytes,
}


def signed_bytes(req):
    return {"bytes": b64(SIGNED_BYTES[req["kind"]](req))}


def sign(req):
    message = SIGNED_BYTES[req["kind"]](req)
    return {"signature": b64(private_key(req["signingPrivateKey"]).sign(message, PSS, hashes.SHA256()))}


def verify(req):
    message = SIGNED_BYTES[req["kind"]](req)
    try:
        public_key(req["signingPublicKey"]).verify(unb64(req["signature"]), message, PSS, hashes.SHA256())
        return {"valid": True}
    except InvalidSignature:
        return {"valid": False}


# Identities.

def generate_identity(req):
    signing = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    encryption = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return {
        "signingPrivateKey": b64(pkcs8(signing)),
        "encryptionPrivateKey": b64(pkcs8(encryption)),
        "publicKeys": {"signing": b64(spki(signing)), "encryption": b64(spki(encryption))},
    }


def public_keys_of(req):
    signing = private_key(req["signingPrivateKey"])
    encryption = private_key(req["encryptionPrivateKey"])
    return {"signing": b64(spki(signing)), "encryption": b64(spki(encryption))}


def fingerprints(req):
    first = fingerprint(unb64(req["first"]["signing"]), unb64(req["first"]["encryption"]))
    second = fingerprint(unb64(req["second"]["signing"]), unb64(req["second"]["encryption"]))
    low, high = sorted([first, second])
    digest = hashlib.sha512(b"wots-safety-number-v1\x00" + low + high).digest()
    groups = [f"{int.from_bytes(digest[5 * i:5 * i + 5], 'big') % 100000:05d}" for i in range(12)]
    return {"first": first.hex(), "second": second.hex(), "safetyNumber": " ".join(groups)}


# The secret and sealed private keys.

def key_derivation_error(params):
    """SECURITY.md's floors and ceilings; a refusal comes before any scrypt work."""
    n, r, p, salt = params["n"], params["r"], params["p"], unb64(params["salt"])
    if not 16 <= len(salt) <= 64:
        return "salt length"
    if not (2 ** 15 <= n <= 2 ** 20 and n & (n - 1) == 0):
        return "N"
    if not (8 <= r <= 32 and 1 <= p <= 4):
        return "r or p"
    if 128 * r * n > 256 * 1024 * 1024:
        return "memory"
    return None


def restore_key(authentication_key):
    seed = hashlib.sha256(b"wots-restore-key-v1\x00" + authentication_key).digest()
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed)


def restore_public_key(authentication_key):
    return restore_key(authentication_key).public_key().public_bytes(serialization.Encoding.Raw,
                                                                      serialization.PublicFormat.Raw)


def derive_secret(req):
    params = req["parameters"]
    if key_derivation_error(params):
        return {"error": "invalid_key_derivation"}
    secret = unicodedata.normalize("NFC", req["secret"]).encode("utf-8")
    okm = hashlib.scrypt(secret, salt=unb64(params["salt"]), n=params["n"], r=params["r"], p=params["p"],
                         maxmem=300 * 1024 * 1024, dklen=64)
    return {"encryptionKey": b64(okm[:32]), "authenticationKey": b64(okm[32:]),
            "secretVerifier": b64(restore_public_key(okm[32:]))}


def secret_verifier(req):
    return {"secretVerifier": b64(restore_public_key(unb64(req["authenticationKey"])))}


def sign_restore(req):
    """Ed25519 is deterministic (RFC 8032), so this equals any correct implementation's signature."""
    return {"signature": b64(restore_key(unb64(req["authenticationKey"])).sign(restore_bytes(req)))}


def verify_restore(req):
    key = ed25519.Ed25519PublicKey.from_public_bytes(unb64(req["secretVerifier"]))
    try:
        key.verify(unb64(req["signature"]), restore_bytes(req))
        return {"valid": True}
    except InvalidSignature:
        return {"valid": False}


def seal_private_keys(req):
    plaintext = u16_bytes(unb64(req["signingPrivateKey"])) + u16_bytes(unb64(req["encryptionPrivateKey"]))
    nonce = os.urandom(12)
    aad = b"wots-private-keys-v1\x00" + token_bytes(req["token"])
    return {"sealed": b64(b"\x01" + nonce + AESGCM(unb64(req["encryptionKey"])).encrypt(nonce, plaintext, aad))}


def open_private_keys(req):
    sealed = unb64(req["sealed"])
    assert sealed[0] == 1
    aad = b"wots-private-keys-v1\x00" + token_bytes(req["token"])
    try:
        plaintext = AESGCM(unb64(req["encryptionKey"])).decrypt(sealed[1:13], sealed[13:], aad)
    except InvalidTag:
        return {"error": "wrong_secret"}
    (signing_length,) = struct.unpack(">H", plaintext[:2])
    signing = plaintext[2:2 + signing_length]
    rest = plaintext[2 + signing_length:]
    (encryption_length,) = struct.unpack(">H", rest[:2])
    assert len(rest) == 2 + encryption_length
    encryption = rest[2:]
    # Loading proves they are usable keys, not just bytes.
    signing_key = serialization.load_der_private_key(signing, None)
    encryption_key = serialization.load_der_private_key(encryption, None)
    return {
        "signingPrivateKey": b64(signing),
        "encryptionPrivateKey": b64(encryption),
        "publicKeys": {"signing": b64(spki(signing_key)), "encryption": b64(spki(encryption_key))},
    }


# Envelopes (opening is scripts/check_envelope_vector.py; this seals).

def seal_envelope(req):
    sender = req["sender"]
    recipient = req["recipient"]
    sender_keys = {k: unb64(v) for k, v in sender["publicKeys"].items()}
    recipient_keys = {k: unb64(v) for k, v in recipient["publicKeys"].items()}
    plaintext = req["plaintext"].encode("utf-8")
    padded = plaintext + b"\x80" + b"\x00" * ((-len(plaintext) - 1) % 256)
    message_id = uuid.UUID(req["id"]) if "id" in req else uuid.uuid4()
    header = (bytes([1]) + message_id.bytes + token_bytes(sender["token"])
              + fingerprint(sender_keys["signing"], sender_keys["encryption"]) + token_bytes(recipient["token"])
              + fingerprint(recipient_keys["signing"], recipient_keys["encryption"]) + struct.pack(">Q", req["sentAt"]))
    content_key = os.urandom(32)
    nonce = os.urandom(12)
    ciphertext = AESGCM(content_key).encrypt(nonce, padded, header)
    wrapped_key = serialization.load_der_public_key(recipient_keys["encryption"]).encrypt(content_key, OAEP)
    body = header + u16_bytes(wrapped_key) + u16_bytes(nonce) + u32_bytes(ciphertext)
    signature = private_key(sender["signingPrivateKey"]).sign(b"wots-envelope-v1\x00" + body, PSS, hashes.SHA256())
    return {"serialized": b64(body + u16_bytes(signature)), "id": str(message_id).upper()}


COMMANDS = {
    "signed-bytes": signed_bytes,
    "sign": sign,
    "verify": verify,
    "generate-identity": generate_identity,
    "public-keys-of": public_keys_of,
    "fingerprints": fingerprints,
    "derive-secret": derive_secret,
    "secret-verifier": secret_verifier,
    "sign-restore": sign_restore,
    "verify-restore": verify_restore,
    "seal-private-keys": seal_private_keys,
    "open-private-keys": open_private_keys,
    "seal-envelope": seal_envelope,
}


def main():
    request = json.load(sys.stdin)
    json.dump(COMMANDS[sys.argv[1]](request), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
