#!/usr/bin/env python3
"""Writes the seed corpus in Fuzz/Corpus/TARGET/ from the committed vectors, test keys and the shapes in
schema/openapi.yaml and schema/stream.md: a few valid inputs per target, which libFuzzer mutates from.
Deterministic (no randomness), so running it again changes nothing. Needs Python `cryptography`."""
import base64
import hashlib
import json
import pathlib
import struct

from cryptography.hazmat.primitives import serialization

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"
FIXTURES = ROOT / "Sources" / "WotsTesting" / "Fixtures"

b64 = lambda data: base64.b64encode(data).decode()


def key(name, use):
    return serialization.load_pem_private_key((FIXTURES / f"{name}-{use}.pem").read_bytes(), password=None)


def pkcs8(name, use):
    return key(name, use).private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def spki(name, use):
    return key(name, use).public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, (dict, list)):
        data = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if isinstance(data, str):
        data = data.encode()
    (folder / name).write_bytes(data)


envelope_vector = json.loads((ROOT / "schema" / "vectors" / "envelope-v1.json").read_text())
checkpoint_vector = json.loads((ROOT / "schema" / "vectors" / "checkpoint-v1.json").read_text())
envelope = envelope_vector["envelope"]
alice, bob = "zijosdxwlrzlbou3pc4us3bmii", "psvnq2utkat2kvrmi2s4erjzcm"
message_id = envelope["id"]
public_keys = {"signing": b64(spki("alice", "signing")), "encryption": b64(spki("alice", "encryption"))}
fingerprint = hashlib.sha256(spki("alice", "signing") + spki("alice", "encryption")).hexdigest()
private_record = {
    "token": alice,
    "keyDerivation": {"salt": b64(bytes(range(16))), "n": 32768, "r": 8, "p": 1},
    "sealedPrivateKeys": b64(bytes([2]) + bytes(12) + bytes(range(48))),
    "secretVerifier": b64(bytes(range(32))),
    "avatar": {"preset": "tiger"},
}
entry = {
    "token": alice,
    "nickname": "alice",
    "publicKeys": public_keys,
    "fingerprint": fingerprint,
    "registeredAt": "2026-11-23T10:00:00.000Z",
}
when = "2026-11-23T10:00:00.123Z"

# Envelope bytes.
write("envelope", "vector-v1", base64.b64decode(envelope_vector["serialized"]))

# JSON bodies: what the relay reads, then what a client reads.
bodies = {
    "registration": {
        "token": alice,
        "nickname": "alice",
        "publicKeys": public_keys,
        "privateRecord": private_record,
        "proof": b64(bytes(range(64))),
    },
    "session": {"token": alice, "nonce": b64(bytes(32)), "signature": b64(bytes(range(64)))},
    "send": envelope,
    "ack": {"messages": [{"sender": bob, "id": message_id}]},
    "restore-parameters": {"nickname": "alice"},
    "restore": {"nickname": "alice", "authenticationKey": b64(bytes(range(32)))},
    "rotation": {
        "publicKeys": public_keys,
        "privateRecord": private_record,
        "oldKeySignature": b64(bytes(64)),
        "newKeySignature": b64(bytes(64)),
    },
    "private-record-image": dict(private_record, avatar={"image": b64(b"\x89PNG\r\n\x1a\n" + bytes(8))}),
    "challenge-response": {"nonce": b64(bytes(32)), "relayID": "relay-1", "expiresAt": when},
    "session-response": {"session": "s" * 43, "expiresAt": "2026-11-23T10:00:00Z"},
    "restore-parameters-response": {"keyDerivation": private_record["keyDerivation"]},
    "account-response": {"entry": entry, "privateRecord": private_record},
    "directory-page": {"entries": [entry], "next": "bjE6YWxpY2U"},
    "send-receipt": {"id": message_id, "seq": 7, "receivedAt": when},
    "mailbox": {"messages": [{"seq": 7, "receivedAt": when, "envelope": envelope}]},
    "ack-response": {"acknowledged": 1, "messages": [{"sender": bob, "id": message_id.upper()}]},
    "error": {"error": {"code": "nickname_taken", "message": "nickname \"alice\" is taken"}},
}
for name, body in bodies.items():
    write("json-bodies", name, body)

# Stream frames (schema/stream.md), client then relay.
frames = {
    "auth": {"type": "auth", "ref": "1", "session": "s" * 43},
    "send": {"type": "send", "ref": "2", "envelope": envelope},
    "ack": {"type": "ack", "ref": "3", "messages": [{"sender": bob, "id": message_id}]},
    "subscribe": {"type": "subscribe", "directory": True},
    "ready": {"type": "ready", "ref": "1", "token": alice},
    "message": {"type": "message", "seq": 7, "receivedAt": when, "envelope": envelope},
    "accepted": {"type": "accepted", "ref": "2", "id": message_id, "seq": 7, "receivedAt": when},
    "acked": {"type": "acked", "ref": "3", "acknowledged": 1, "messages": [{"sender": bob, "id": message_id}]},
    "subscribed": {"type": "subscribed", "ref": "4", "directory": False},
    "error": {"type": "error", "ref": "2", "id": message_id, "code": "invalid_frame", "message": "no"},
    "directory": {"type": "directory", "change": "registered", "nickname": "bob"},
}
for name, frame in frames.items():
    write("stream-frames", name, frame)


# Private records: the first byte picks the mode (Fuzz/Sources/fuzz-private-records).
def u16(data):
    return struct.pack(">H", len(data)) + data


keys = u16(pkcs8("alice", "signing")) + u16(pkcs8("alice", "encryption"))
retired = struct.pack(">H", 1) + hashlib.sha256(b"bob").digest() + u16(pkcs8("bob", "encryption"))
write("private-records", "blob", bytes([0, 2]) + bytes(12) + bytes(range(64)))
write("private-records", "plaintext-v1", bytes([1, 0]) + keys)
write("private-records", "plaintext-v2", bytes([1, 1]) + keys + struct.pack(">H", 0))
write("private-records", "plaintext-v2-retired", bytes([1, 1]) + keys + retired)
write("private-records", "record-json", b"\x02" + json.dumps(private_record, sort_keys=True).encode())
write("private-records", "wrong-keys", b"\x03" + bytes(range(64)))

# Public keys: u16 length || signing SPKI || u16 length || encryption SPKI || signature.
for name in ["alice", "bob"]:
    write("public-keys", name, u16(spki(name, "signing")) + u16(spki(name, "encryption")) + bytes(256))

# Cursors as the relay issues them: base64url of "n1:" and the last nickname, unpadded.
for nickname in ["alice", "bob_99", "x.y-z"]:
    write("cursors", nickname, base64.urlsafe_b64encode(f"n1:{nickname}".encode()).decode().rstrip("="))

for name, nickname in {"plain": "alice", "mixed": "Bob_99", "legacy": "...x", "longest": "a" * 32}.items():
    write("nicknames", name, nickname)

# Signed notes: the checkpoint vector's note, its checkpoint text, its verifier key, and its inclusion proof as
# the bytes fuzz-signed-notes reads (leaf index, tree size, then hashes).
note = checkpoint_vector["note"]
write("signed-notes", "note", note)
write("signed-notes", "checkpoint", note.split("\n\n")[0] + "\n")
write("signed-notes", "verifier-key", checkpoint_vector["verifierKey"])
inclusion = checkpoint_vector["inclusion"]
write(
    "signed-notes",
    "inclusion-proof",
    struct.pack(">QQ", inclusion["leafIndex"], inclusion["treeSize"])
    + b"".join(base64.b64decode(h) for h in inclusion["proof"]),
)
