#!/usr/bin/env python3
"""Checks Wots against SECURITY.md with an independent implementation: Python 3.11 and `cryptography` only.

Usage: scripts/check_interop.py [--relay-bin PATH/wots-relay] [--offline]

Offline, it recomputes every known answer in schema/vectors/account-v1.json (scrypt key derivation with NFC
normalisation, restore key and secret verifier, the sealed private keys v2, the registration proof v2, login,
restore and deletion bytes and signatures) and opens schema/vectors/envelope-v1.json and envelope-v2.json.

With --relay-bin, it also starts that relay on a temporary SQLite file and talks to it as a client written from
SECURITY.md: registers two accounts (real scrypt at the floor, a real sealed record, proof v2 naming the relay id),
logs in, restores an account with a fresh challenge and opens the record it gets back, sends an envelope sealed here
from one account to the other and opens it, and exchanges messages both ways with the real `wots` CLI found beside
the relay binary. It plays two attacks: a replayed restore request (401 challenge_invalid) and a registration proof
made for another relay id (400 bad_proof).

Prints one line per check and a summary; exits 1 if any check fails.
"""

import argparse
import base64
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_envelope_vector as envelope_vector  # noqa: E402  (the envelope opener, SECURITY.md's order)

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "schema" / "vectors"
PSS = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
OAEP = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
FLOOR = {"n": 1 << 15, "r": 8, "p": 1}


class Mismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


# --- SECURITY.md's encodings ---------------------------------------------------------------------------------------

def u16(data):
    return struct.pack(">H", len(data)) + data


def u32(data):
    return struct.pack(">I", len(data)) + data


def b64(data):
    return base64.b64encode(data).decode()


def unb64(text):
    return base64.b64decode(text, validate=True)


def token_text(raw):
    return base64.b32encode(raw).decode().rstrip("=").lower()


def token_bytes(text):
    return base64.b32decode(text.upper() + "=" * (-len(text) % 8))


def spki(key):
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def pkcs8(key):
    return key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def fingerprint(signing_spki, encryption_spki):
    return hashlib.sha256(signing_spki + encryption_spki).digest()


def pss_verifies(spki_der, signature, message):
    try:
        serialization.load_der_public_key(spki_der).verify(signature, message, PSS, hashes.SHA256())
        return True
    except InvalidSignature:
        return False


def derive(secret, salt, n, r, p):
    """scrypt over the UTF-8 of the secret's NFC form: (encryptionKey, authenticationKey)."""
    password = unicodedata.normalize("NFC", secret).encode("utf-8")
    okm = hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=64, maxmem=128 * r * n + (1 << 20))
    return okm[:32], okm[32:]


def restore_key(authentication_key):
    seed = hashlib.sha256(b"wots-restore-key-v1\x00" + authentication_key).digest()
    return seed, ed25519.Ed25519PrivateKey.from_private_bytes(seed)


def raw_public(ed_key):
    return ed_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def registration_bytes(relay_id, token, nickname, signing_spki, encryption_spki):
    return (b"wots-register-v2\x00" + u16(relay_id) + token + u16(nickname.lower().encode())
            + u16(signing_spki) + u16(encryption_spki))


def challenge_bytes(label, relay_id, nonce, subject):
    expect(1 <= len(relay_id) <= 0xFFFF and 1 <= len(nonce) <= 0xFFFF, "relay id and nonce must be 1–65,535 bytes")
    return label + b"\x00" + u16(relay_id) + u16(nonce) + subject


def login_bytes(relay_id, nonce, token):
    return challenge_bytes(b"wots-auth-v1", relay_id, nonce, token)


def deletion_bytes(relay_id, nonce, token):
    return challenge_bytes(b"wots-delete-v1", relay_id, nonce, token)


def restore_bytes(relay_id, nonce, nickname):
    return challenge_bytes(b"wots-restore-v1", relay_id, nonce, u16(nickname.encode()))


def sealed_plaintext(signing_der, encryption_der, retired):
    out = u16(signing_der) + u16(encryption_der) + struct.pack(">H", len(retired))
    for retired_fingerprint, key_der in retired:
        out += retired_fingerprint + u16(key_der)
    return out


def seal_private_keys(encryption_key, token, nonce, plaintext):
    return b"\x02" + nonce + AESGCM(encryption_key).encrypt(nonce, plaintext, b"wots-private-keys-v2\x00" + token)


def open_private_keys(encryption_key, token, sealed):
    """Returns (signing PKCS#8, encryption PKCS#8, [(fingerprint, retired PKCS#8)]) of a version 2 blob."""
    expect(sealed[:1] == b"\x02", f"sealed private keys version {sealed[:1].hex()} is not 02")
    plaintext = AESGCM(encryption_key).decrypt(sealed[1:13], sealed[13:], b"wots-private-keys-v2\x00" + token)
    reader = envelope_vector.Reader(plaintext)
    signing = reader.u16_bytes("the signing key")
    encryption = reader.u16_bytes("the encryption key")
    (count,) = struct.unpack(">H", reader.take(2, "the retired count"))
    expect(count <= 16, f"{count} retired keys, more than 16")
    retired = [(reader.take(32, "a retired fingerprint"), reader.u16_bytes("a retired key")) for _ in range(count)]
    expect(reader.offset == len(plaintext), "bytes after the last retired key")
    return signing, encryption, retired


def rsa_2048(der):
    key = serialization.load_der_private_key(der, None)
    expect(isinstance(key, rsa.RSAPrivateKey), "a sealed key is not RSA")
    expect(key.key_size == 2048 and key.public_key().public_numbers().e == 65537, "a sealed key is not RSA-2048, e 65537")
    expect(pkcs8(key) == der, "a sealed key is not canonical PKCS#8 DER")
    return key


# --- envelopes -------------------------------------------------------------------------------------------------------

def seal_envelope(sender, recipient_token, recipient_encryption_spki, recipient_fingerprint, text, version=2):
    """SECURITY.md "Sealing (sender)": the JSON form of an envelope from `sender` (an Account). Version 2 carries
    `text` typed content with no timer (expiresAt 0); version 1 carries the UTF-8 text itself."""
    plaintext = json.dumps({"type": "text", "text": text}).encode() if version == 2 else text.encode()
    padded = plaintext + b"\x80" + b"\x00" * (-(len(plaintext) + 1) % 256)
    key, nonce, message_id = os.urandom(32), os.urandom(12), uuid.uuid4()
    sent_at = int(time.time() * 1000)
    header = (bytes([version]) + message_id.bytes + sender.token + sender.fingerprint + recipient_token
              + recipient_fingerprint + struct.pack(">Q", sent_at) + (struct.pack(">Q", 0) if version == 2 else b""))
    ciphertext = AESGCM(key).encrypt(nonce, padded, header)
    wrapped = serialization.load_der_public_key(recipient_encryption_spki).encrypt(key, OAEP)
    body = header + u16(wrapped) + u16(nonce) + u32(ciphertext)
    signature = sender.signing.sign(envelope_vector.envelope_label(version) + body, PSS, hashes.SHA256())
    form = {
        "version": version, "id": str(message_id), "sender": token_text(sender.token),
        "senderFingerprint": sender.fingerprint.hex(), "recipient": token_text(recipient_token),
        "recipientFingerprint": recipient_fingerprint.hex(), "sentAt": sent_at, "wrappedKey": b64(wrapped),
        "nonce": b64(nonce), "ciphertext": b64(ciphertext), "signature": b64(signature),
    }
    if version == 2:
        form["expiresAt"] = 0
    return form


def open_envelope(form, recipient, sender_keys):
    """SECURITY.md "Opening (recipient)" on the JSON form: the plaintext, or Mismatch naming the failed step."""
    expect(form["version"] in (1, 2), f"version {form['version']} is not 1 or 2")
    expect((form["version"] == 2) == ("expiresAt" in form), "expiresAt is required in version 2 and only there")
    header = (bytes([form["version"]]) + uuid.UUID(form["id"]).bytes + token_bytes(form["sender"])
              + bytes.fromhex(form["senderFingerprint"]) + token_bytes(form["recipient"])
              + bytes.fromhex(form["recipientFingerprint"]) + struct.pack(">Q", form["sentAt"])
              + (struct.pack(">Q", form["expiresAt"]) if form["version"] == 2 else b""))
    wrapped, nonce, ciphertext = unb64(form["wrappedKey"]), unb64(form["nonce"]), unb64(form["ciphertext"])
    serialized = header + u16(wrapped) + u16(nonce) + u32(ciphertext) + u16(unb64(form["signature"]))
    header, fields, wrapped, nonce, ciphertext, signed_part, signature = envelope_vector.parse(serialized)
    version = fields["version"]
    expect(version == 1 or fields["expiresAt"] == 0 or fields["expiresAt"] > fields["sentAt"],
           "expiresAt is not after sentAt")
    expect(fields["recipient"] == recipient.token and fields["recipientFingerprint"] == recipient.fingerprint,
           "not for me")
    expect(fields["senderFingerprint"] == fingerprint(sender_keys["signing"], sender_keys["encryption"]),
           "sender key mismatch")
    expect(pss_verifies(sender_keys["signing"], signature, envelope_vector.envelope_label(version) + signed_part),
           "bad signature")
    key = recipient.encryption.decrypt(wrapped, OAEP)
    expect(len(key) == 32, "content key is not 32 bytes")
    plaintext = envelope_vector.unpad(AESGCM(key).decrypt(nonce, ciphertext, header))
    if version == 1:
        return plaintext.decode()
    envelope_vector.check_content(plaintext, fields, {})
    content = json.loads(plaintext)
    expect(content["type"] == "text" and isinstance(content.get("text"), str), f"content type {content['type']}")
    return content["text"]


# --- offline: the known-answer vectors -------------------------------------------------------------------------------

def offline_checks(report):
    vector = json.loads((VECTORS / "account-v1.json").read_text(encoding="utf-8"))

    def key_derivation():
        non_nfc = 0
        for case in vector["keyDerivation"]:
            nfc = unicodedata.normalize("NFC", case["secret"]).encode()
            expect(nfc == unb64(case["secretUTF8"]), f"{case['name']}: secretUTF8 is not the NFC form's UTF-8")
            non_nfc += nfc != case["secret"].encode()
            expect({k: case[k] for k in ("n", "r", "p")} == FLOOR, f"{case['name']}: not the scrypt floor")
            encryption_key, authentication_key = derive(case["secret"], unb64(case["salt"]), case["n"], case["r"],
                                                        case["p"])
            expect(encryption_key == unb64(case["encryptionKey"]), f"{case['name']}: encryptionKey differs")
            expect(authentication_key == unb64(case["authenticationKey"]), f"{case['name']}: authenticationKey differs")
            seed, key = restore_key(authentication_key)
            expect(seed == unb64(case["restoreKeySeed"]), f"{case['name']}: restoreKeySeed differs")
            expect(raw_public(key) == unb64(case["secretVerifier"]), f"{case['name']}: secretVerifier differs")
        expect(non_nfc >= 1, "no vector has a secret that NFC normalisation changes")
        return f"{len(vector['keyDerivation'])} secrets, {non_nfc} needing NFC"

    def sealed_keys():
        sealed = vector["sealedPrivateKeys"]
        token = token_bytes(sealed["token"])
        key = unb64(sealed["encryptionKey"])
        expect(key == unb64(vector["keyDerivation"][0]["encryptionKey"]), "sealing key is not keyDerivation[0]'s")
        blob = unb64(sealed["sealed"])
        signing, encryption, retired = open_private_keys(key, token, blob)
        expect(signing == unb64(sealed["signingPrivateKey"]), "sealed signing key differs")
        expect(encryption == unb64(sealed["encryptionPrivateKey"]), "sealed encryption key differs")
        expect([(f.hex(), k) for f, k in retired]
               == [(r["fingerprint"], unb64(r["encryptionPrivateKey"])) for r in sealed["retired"]],
               "retired keys differ")
        signing_key, encryption_key = rsa_2048(signing), rsa_2048(encryption)
        for _, retired_der in retired:
            rsa_2048(retired_der)
        identity = vector["identity"]
        expect(b64(spki(signing_key)) == identity["publicKeys"]["signing"], "sealed signing key is not the identity's")
        expect(b64(spki(encryption_key)) == identity["publicKeys"]["encryption"], "sealed encryption key differs")
        expect(fingerprint(spki(signing_key), spki(encryption_key)).hex() == identity["fingerprint"],
               "identity fingerprint differs")
        again = seal_private_keys(key, token, unb64(sealed["nonce"]), sealed_plaintext(signing, encryption, retired))
        expect(again == blob, "resealing with the vector's nonce gives other bytes")
        try:
            open_private_keys(key, token[::-1], blob)
            raise Mismatch("the sealed keys open for another token")
        except InvalidTag:
            pass  # the token is associated data
        return f"{len(blob)} bytes open to 2 keys + {len(retired)} retired, RSA-2048 PKCS#8"

    def registration():
        reg = vector["registration"]
        keys = reg["publicKeys"]
        message = registration_bytes(unb64(reg["relayID"]), token_bytes(reg["token"]), reg["nickname"],
                                     unb64(keys["signing"]), unb64(keys["encryption"]))
        expect(message == unb64(reg["signedBytes"]), "registration signed bytes differ")
        expect(pss_verifies(unb64(keys["signing"]), unb64(reg["signature"]), message), "registration signature")
        other = bytes([message[17] ^ 1]) + message[18:]
        expect(not pss_verifies(unb64(keys["signing"]), unb64(reg["signature"]), message[:17] + other),
               "the proof verifies for another relay id")
        return f"{len(message)} signed bytes, RSA-PSS verifies"

    def token_challenge(name, make):
        def check():
            known = vector[name]
            message = make(unb64(known["relayID"]), unb64(known["nonce"]), token_bytes(known["token"]))
            expect(message == unb64(known["signedBytes"]), f"{name} signed bytes differ")
            signing = unb64(vector["identity"]["publicKeys"]["signing"])
            expect(pss_verifies(signing, unb64(known["signature"]), message), f"{name} signature does not verify")
            return f"{len(message)} signed bytes, RSA-PSS verifies"
        return check

    def restore():
        known = vector["restore"]
        message = restore_bytes(unb64(known["relayID"]), unb64(known["nonce"]), known["nickname"])
        expect(message == unb64(known["signedBytes"]), "restore signed bytes differ")
        expect(unb64(known["authenticationKey"]) == unb64(vector["keyDerivation"][0]["authenticationKey"]),
               "restore key is not keyDerivation[0]'s")
        _, key = restore_key(unb64(known["authenticationKey"]))
        expect(raw_public(key) == unb64(known["secretVerifier"]), "restore secretVerifier differs")
        expect(key.sign(message) == unb64(known["signature"]), "Ed25519 signature differs (it is deterministic)")
        return f"{len(message)} signed bytes, Ed25519 signature recomputed"

    def envelope(name):
        def check():
            fields, plaintext = envelope_vector.check(json.loads((VECTORS / name).read_text("utf-8")))
            return f"v{fields['version']} message {fields['id']} opens to {len(plaintext)} bytes"
        return check

    report.run("vector: key derivation (scrypt floor, NFC, restore key, verifier)", key_derivation)
    report.run("vector: sealed private keys v2 (AES-256-GCM, PKCS#8)", sealed_keys)
    report.run("vector: registration proof v2", registration)
    report.run("vector: login bytes", token_challenge("login", login_bytes))
    report.run("vector: restore bytes and Ed25519 signature", restore)
    report.run("vector: deletion bytes", token_challenge("deletion", deletion_bytes))
    report.run("vector: envelope v1 opens (check_envelope_vector.py)", envelope("envelope-v1.json"))
    report.run("vector: envelope v2 opens, typed content agrees with expiresAt", envelope("envelope-v2.json"))


# --- live: a relay and the wots CLI ----------------------------------------------------------------------------------

class RelayError(Exception):
    def __init__(self, status, code):
        super().__init__(f"HTTP {status} {code}")
        self.status, self.code = status, code


class Relay:
    def __init__(self, binary, work):
        self.log = open(work / "relay.log", "wb")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--database", f"sqlite:{work / 'relay.sqlite'}",
             "--registrations-per-minute", "1000000", "--log-level", "warning", "--admin-address", "none"],
            stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        while line and "listening on http://" not in line:
            line = self.process.stdout.readline().decode()
        expect("listening on http://" in line, f"relay did not start: {line!r}")
        self.url = line.strip().split("listening on ")[1]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()

    def call(self, method, path, body=None, session=None):
        headers = {"Content-Type": "application/json"}
        if session:
            headers["Authorization"] = f"Bearer {session}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            payload = json.loads(error.read() or b"{}")
            raise RelayError(error.code, payload.get("error", {}).get("code")) from None

    def relay_id(self):
        return unb64(self.call("GET", "/v1/relay")["relayID"])

    def challenge(self):
        answer = self.call("POST", "/v1/auth/challenge", {})
        return unb64(answer["relayID"]), answer["nonce"]


class Account:
    """A Wots account made here from SECURITY.md: keys, token, secret, sealed record."""

    def __init__(self, nickname):
        self.nickname = nickname
        self.secret = f"Säkerhet för {nickname}, interop"  # non-ASCII on purpose
        self.signing = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.encryption = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.token = os.urandom(16)
        self.salt = os.urandom(16)
        self.keys = {"signing": spki(self.signing), "encryption": spki(self.encryption)}
        self.fingerprint = fingerprint(self.keys["signing"], self.keys["encryption"])
        encryption_key, authentication_key = derive(self.secret, self.salt, **FLOOR)
        self.sealed = seal_private_keys(encryption_key, self.token, os.urandom(12),
                                        sealed_plaintext(pkcs8(self.signing), pkcs8(self.encryption), []))
        self.verifier = raw_public(restore_key(authentication_key)[1])

    def registration(self, relay_id):
        proof = self.signing.sign(registration_bytes(relay_id, self.token, self.nickname, self.keys["signing"],
                                                     self.keys["encryption"]), PSS, hashes.SHA256())
        return {
            "token": token_text(self.token), "nickname": self.nickname,
            "publicKeys": {k: b64(v) for k, v in self.keys.items()},
            "privateRecord": {"token": token_text(self.token), "keyDerivation": {"salt": b64(self.salt), **FLOOR},
                              "sealedPrivateKeys": b64(self.sealed), "secretVerifier": b64(self.verifier)},
            "proof": b64(proof),
        }

    def log_in(self, relay):
        relay_id, nonce = relay.challenge()
        signature = self.signing.sign(login_bytes(relay_id, unb64(nonce), self.token), PSS, hashes.SHA256())
        answer = relay.call("POST", "/v1/auth/session",
                            {"token": token_text(self.token), "nonce": nonce, "signature": b64(signature)})
        return answer["session"]


def directory_keys(relay, nickname):
    entry = relay.call("GET", f"/v1/directory/{nickname}")
    keys = {k: unb64(v) for k, v in entry["publicKeys"].items()}
    expect(fingerprint(keys["signing"], keys["encryption"]).hex() == entry["fingerprint"],
           f"{nickname}'s directory fingerprint is not its keys'")
    return token_bytes(entry["token"]), keys


def mailbox(relay, session):
    return relay.call("GET", "/v1/messages", session=session)["messages"]


def live_checks(report, relay_bin):
    bin_dir = Path(relay_bin).resolve().parent
    wots_bin = bin_dir / "wots"
    with tempfile.TemporaryDirectory(prefix="wots-interop.") as folder:
        work = Path(folder)
        relay = Relay(relay_bin, work)
        try:
            run_live(report, relay, wots_bin, work)
        finally:
            relay.stop()


def run_live(report, relay, wots_bin, work):
    alice, bob = Account("py-alice"), Account("py-bob")
    state = {}

    def register_alice():
        relay_id = relay.relay_id()
        relay.call("POST", "/v1/register", alice.registration(relay_id))
        entry = relay.call("GET", f"/v1/directory/{alice.nickname}")
        expect(entry["fingerprint"] == alice.fingerprint.hex(), "directory fingerprint is not alice's")
        return f"relay id {len(relay_id)} bytes, fingerprint {alice.fingerprint.hex()[:16]}…"

    def proof_for_another_relay():
        other = bytearray(relay.relay_id())
        other[0] ^= 1
        try:
            relay.call("POST", "/v1/register", bob.registration(bytes(other)))
        except RelayError as error:
            expect((error.status, error.code) == (400, "bad_proof"), f"answered {error}, not 400 bad_proof")
            relay.call("POST", "/v1/register", bob.registration(relay.relay_id()))
            return "400 bad_proof; the same account with the right relay id registers"
        raise Mismatch("a registration proof for another relay id was accepted")

    def log_in():
        state["alice"] = alice.log_in(relay)
        state["bob"] = bob.log_in(relay)
        return "both accounts hold a session"

    def restore():
        parameters = relay.call("POST", "/v1/restore/parameters", {"nickname": alice.nickname})["keyDerivation"]
        expect(parameters == {"salt": b64(alice.salt), **FLOOR}, f"restore parameters differ: {parameters}")
        expect(parameters["n"] >= FLOOR["n"] and parameters["r"] >= FLOOR["r"], "parameters below the floors")
        encryption_key, authentication_key = derive(alice.secret, unb64(parameters["salt"]), parameters["n"],
                                                    parameters["r"], parameters["p"])
        relay_id, nonce = relay.challenge()
        signature = restore_key(authentication_key)[1].sign(restore_bytes(relay_id, unb64(nonce), alice.nickname))
        request = {"nickname": alice.nickname, "nonce": nonce, "signature": b64(signature)}
        answer = relay.call("POST", "/v1/restore", request)
        state["restore request"] = request
        record = answer["privateRecord"]
        expect(answer["entry"]["token"] == token_text(alice.token), "restored another account")
        expect(unb64(record["secretVerifier"]) == alice.verifier, "restored verifier differs")
        signing, encryption, retired = open_private_keys(encryption_key, alice.token,
                                                         unb64(record["sealedPrivateKeys"]))
        expect((signing, encryption, retired) == (pkcs8(alice.signing), pkcs8(alice.encryption), []),
               "the restored record opens to other keys")
        return "record opened with the secret, keys identical"

    def replayed_restore():
        try:
            relay.call("POST", "/v1/restore", state["restore request"])
        except RelayError as error:
            expect((error.status, error.code) == (401, "challenge_invalid"), f"answered {error}")
            return "401 challenge_invalid"
        raise Mismatch("the replayed restore request was answered with the record")

    def python_to_python():
        bob_token, bob_keys = directory_keys(relay, bob.nickname)
        text = "Python to Python: grüße ✓"
        # Version 1, which relays still take; the CLI exchange below is version 2.
        form = seal_envelope(alice, bob_token, bob_keys["encryption"], fingerprint(bob_keys["signing"], bob_keys["encryption"]), text, version=1)
        receipt = relay.call("POST", "/v1/messages", form, session=state["alice"])
        expect(receipt["id"].lower() == form["id"], "receipt names another id")
        delivered = [m["envelope"] for m in mailbox(relay, state["bob"]) if m["envelope"]["id"] == form["id"]]
        expect(len(delivered) == 1, f"bob's mailbox holds {len(delivered)} copies of the message")
        _, alice_keys = directory_keys(relay, alice.nickname)
        expect(open_envelope(delivered[0], bob, alice_keys) == text, "opened to another text")
        return f"envelope {form['id']} sealed, fetched and opened"

    home = work / "cli-home"
    cli_env = {**os.environ, "WOTS_HOME": str(home), "WOTS_SECRET": "the CLI's secret, long enough",
               "WOTS_RELAY": relay.url}
    for name in ("XDG_DATA_HOME",):
        cli_env.pop(name, None)

    def wots(*arguments):
        done = subprocess.run([str(wots_bin), *arguments], env=cli_env, capture_output=True, text=True, timeout=60)
        expect(done.returncode == 0, f"wots {' '.join(arguments)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def cli_to_python():
        wots("register", "--nick", "cli-carol")
        text = f"CLI to Python {uuid.uuid4()}: ünïcødé ✓"
        wots("send", "--to", alice.nickname, text)
        cli_token, cli_keys = directory_keys(relay, "cli-carol")
        delivered = [m["envelope"] for m in mailbox(relay, state["alice"])
                     if token_bytes(m["envelope"]["sender"]) == cli_token]
        expect(len(delivered) == 1, f"alice's mailbox holds {len(delivered)} messages from the CLI")
        expect(open_envelope(delivered[0], alice, cli_keys) == text, "opened to another text")
        return "sent by wots, opened here"

    def python_to_cli():
        cli_token, cli_keys = directory_keys(relay, "cli-carol")
        text = f"Python to CLI {uuid.uuid4()}: ünïcødé ✓"
        form = seal_envelope(bob, cli_token, cli_keys["encryption"], fingerprint(cli_keys["signing"], cli_keys["encryption"]), text)
        relay.call("POST", "/v1/messages", form, session=state["bob"])
        shown = json.loads(wots("inbox", "--json"))
        mine = [m for m in shown if m.get("from") == bob.nickname]
        expect(len(mine) == 1, f"wots inbox shows {len(mine)} messages from {bob.nickname}: {shown}")
        expect(mine[0]["valid"] is True, f"wots inbox marks it invalid: {mine[0].get('error')}")
        expect(mine[0]["text"] == text, "wots inbox shows another text")
        return "sealed here, wots inbox --json shows it valid"

    report.run("live: register from Python (scrypt floor, sealed record v2, proof v2)", register_alice)
    report.run("attack: registration proof for another relay id", proof_for_another_relay)
    report.run("live: log in (RSA-PSS over wots-auth-v1)", log_in)
    report.run("live: restore with a fresh challenge and the Ed25519 restore key", restore)
    report.run("attack: replayed restore request", replayed_restore)
    report.run("live: envelope Python → Python", python_to_python)
    report.run("live: wots CLI → Python", cli_to_python)
    report.run("live: Python → wots CLI", python_to_cli)


class Report:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def run(self, name, check):
        started = time.monotonic()
        try:
            detail = check()
        except Exception as error:  # every failure, of any kind, is one failed line
            self.failed += 1
            print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
            return
        self.passed += 1
        print(f"ok   {name}: {detail} ({time.monotonic() - started:.2f} s)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--relay-bin", help="path to wots-relay; the wots CLI must be in the same folder")
    parser.add_argument("--offline", action="store_true", help="check the vectors only, start nothing")
    arguments = parser.parse_args()
    if not arguments.offline and not arguments.relay_bin:
        parser.error("give --relay-bin PATH, or --offline")
    report = Report()
    started = time.monotonic()
    offline_checks(report)
    if not arguments.offline:
        try:
            live_checks(report, arguments.relay_bin)
        except Exception as error:
            report.failed += 1
            print(f"FAIL live relay: {type(error).__name__}: {error}", flush=True)
    print(f"check_interop: {report.passed} passed, {report.failed} failed in {time.monotonic() - started:.1f} s")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
