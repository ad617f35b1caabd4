#!/usr/bin/env python3
"""Open the Wots group envelope vector (version 3) using only SECURITY.md ("Groups") and Python's `cryptography`.

Usage: scripts/check_group_envelope_vector.py [VECTOR.json]   (default: schema/vectors/group-envelope-v1.json)

Exits 0 when the group state's bytes and hash are rebuilt from its fields, the body parses, the header names that
state and every recipient with its key fingerprint, the sender's signature verifies, and every recipient's slot
matches its signed hash, unwraps a key matching the signed commitment and decrypts to the expected plaintext (typed
content whose disappearAfter agrees with expiresAt); exits 1 naming the first mismatch otherwise.
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

from check_envelope_vector import MAXIMUM_TIME, Mismatch, Reader, base32_token, check_content, expect, fingerprint, unpad

HEADER_FIXED = 179
ENTRY_SIZE = 80


def token_bytes(text):
    return base64.b32decode(text.upper() + "=" * (-len(text) % 8))


def state_bytes(state):
    """SECURITY.md, "Group state and its hash"."""
    name = state["name"].encode("utf-8")
    expect(1 <= len(name) <= 100, "state name is not 1-100 UTF-8 bytes")
    out = bytes.fromhex(state["id"]) + struct.pack(">Q", state["version"]) + bytes.fromhex(state["previous"])
    out += struct.pack(">H", len(name)) + name
    avatar = state.get("avatar")
    if avatar is None:
        out += b"\x00"
    else:
        preset = avatar["preset"].encode("utf-8")
        out += b"\x01" + struct.pack(">B", len(preset)) + preset
    members = sorted(state["members"], key=lambda member: token_bytes(member["token"]))
    expect([m["token"] for m in members] == [m["token"] for m in state["members"]], "state members are not sorted")
    out += struct.pack(">H", len(members))
    for member in members:
        out += token_bytes(member["token"]) + bytes.fromhex(member["fingerprint"])
        out += b"\x01" if member["admin"] else b"\x00"
        out += struct.pack(">Q", member["joinedAt"])
    return out


def parse(body):
    """SECURITY.md, "Group envelope (version 3)": the header, then the nonce, ciphertext and signature."""
    expect(len(body) >= HEADER_FIXED and body[0] == 3, "not a version 3 group envelope")
    (count,) = struct.unpack(">H", body[177:179])
    expect(1 <= count <= 256, f"recipient count {count} is not 1-256")
    reader = Reader(body)
    header = reader.take(HEADER_FIXED + ENTRY_SIZE * count, "the header")
    nonce = reader.u16_bytes("the nonce")
    ciphertext = reader.u32_bytes("the ciphertext")
    signed = b"wots-group-v1\x00" + body[:reader.offset]
    signature = reader.u16_bytes("the signature")
    expect(reader.offset == len(body), "bytes follow the signature")
    entries = [header[HEADER_FIXED + ENTRY_SIZE * i:HEADER_FIXED + ENTRY_SIZE * (i + 1)] for i in range(count)]
    expect(all(a[:16] < b[:16] for a, b in zip(entries, entries[1:])), "recipients are not strictly sorted by token")
    fields = {
        "id": uuid.UUID(bytes=header[1:17]),
        "sender": header[17:33],
        "senderFingerprint": header[33:65],
        "groupID": header[65:81],
        "membershipVersion": struct.unpack(">Q", header[81:89])[0],
        "stateHash": header[89:121],
        "senderSequence": struct.unpack(">Q", header[121:129])[0],
        "sentAt": struct.unpack(">Q", header[129:137])[0],
        "expiresAt": struct.unpack(">Q", header[137:145])[0],
        "commitment": header[145:177],
        "recipients": [(e[:16], e[16:48], e[48:80]) for e in entries],
    }
    return header, fields, nonce, ciphertext, signed, signature


def check(vector):
    b64 = base64.b64decode
    state = vector["state"]
    rebuilt = state_bytes(state)
    expect(rebuilt == b64(vector["stateBytes"]), "stateBytes rebuilt from the state's fields differ from the vector's")
    state_hash = hashlib.sha256(b"wots-group-state-v1\x00" + rebuilt).digest()
    expect(state_hash.hex() == vector["stateHash"], "stateHash differs")

    header, fields, nonce, ciphertext, signed, signature = parse(b64(vector["serialized"]))
    expect(fields["groupID"].hex() == state["id"], "the header names another group")
    expect(fields["membershipVersion"] == state["version"], "the header names another membership version")
    expect(fields["stateHash"] == state_hash, "the header's membership state hash is not the state's")
    expect(fields["senderSequence"] >= 1, "sender sequence is 0")
    expect(fields["sentAt"] <= MAXIMUM_TIME, "sentAt is beyond 2^53 - 1")
    sender = vector["sender"]
    sender_keys = {k: b64(v) for k, v in sender["publicKeys"].items()}
    expect(base32_token(fields["sender"]) == sender["token"], "the header's sender is not the vector's sender")
    expect(fields["senderFingerprint"] == fingerprint(sender_keys), "sender fingerprint is not the sender keys'")
    listed = {base32_token(token): (fp, slot_hash) for token, fp, slot_hash in fields["recipients"]}
    members = {m["token"] for m in state["members"]} - {sender["token"]}
    expect(set(listed) == members, "the recipient list is not the state's members minus the sender")
    try:
        serialization.load_der_public_key(sender_keys["signing"]).verify(
            signature, signed, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256()
        )
    except InvalidSignature:
        raise Mismatch("RSA-PSS signature over \"wots-group-v1\" || 0x00 || header || nonce || ciphertext fails")

    slots = {slot["recipient"]: b64(slot["wrappedKey"]) for slot in vector["slots"]}
    for recipient in vector["recipients"]:
        keys = {k: b64(v) for k, v in recipient["publicKeys"].items()}
        expect(recipient["token"] in listed, f"{recipient['nickname']} is not in the recipient list")
        listed_fingerprint, slot_hash = listed[recipient["token"]]
        expect(listed_fingerprint == fingerprint(keys), f"{recipient['nickname']}'s listed fingerprint differs")
        slot = slots[recipient["token"]]
        expect(len(slot) == 256 and hashlib.sha256(slot).digest() == slot_hash,
               f"{recipient['nickname']}'s slot does not match its signed hash")
        private = serialization.load_der_private_key(b64(recipient["encryptionPrivateKey"]), None)
        try:
            key = private.decrypt(
                slot, padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
            )
        except ValueError:
            raise Mismatch(f"RSA-OAEP does not unwrap {recipient['nickname']}'s slot")
        expect(hashlib.sha256(b"wots-group-key-v1\x00" + key).digest() == fields["commitment"],
               f"{recipient['nickname']}'s key does not match the key commitment")
        try:
            padded = AESGCM(key).decrypt(nonce, ciphertext, header)
        except InvalidTag:
            raise Mismatch("AES-256-GCM tag does not match (header as associated data)")
        plaintext = unpad(padded)
        expect(plaintext == vector["plaintext"].encode("utf-8"), f"{recipient['nickname']} reads another plaintext")
        check_content(plaintext, fields, {})
    return fields


def main(paths):
    paths = paths or [Path(__file__).resolve().parent.parent / "schema/vectors/group-envelope-v1.json"]
    for path in paths:
        try:
            fields = check(json.loads(Path(path).read_text()))
        except (Mismatch, KeyError, ValueError) as problem:
            print(f"{path}: MISMATCH: {problem}")
            return 1
        print(f"{path}: ok: group envelope {fields['id']} to {len(fields['recipients'])} recipients verifies, "
              "every slot opens to the same plaintext, state hash rebuilt from SECURITY.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
