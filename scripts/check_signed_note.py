#!/usr/bin/env python3
"""Check Wots key-transparency artefacts with only the C2SP specifications, RFC 9162 and Python's `cryptography`.

Written from https://c2sp.org/signed-note, https://c2sp.org/tlog-checkpoint, RFC 9162 section 2.1 and the
"Key transparency log" section of SECURITY.md, not from the Swift code, so that the two can disagree.

Usage:
  scripts/check_signed_note.py
      Checks schema/vectors/checkpoint-v1.json (signed checkpoint, verifier key, tree head recomputed from the
      leaves, inclusion and consistency proofs) and every case in ../shared/vectors/merkle/testdata.
  scripts/check_signed_note.py --note FILE --verifier-key KEY --origin ORIGIN
      Verifies one checkpoint note, e.g. fetched from a live relay, and prints its origin, size and root hash.

Exits 0 when everything checks out; exits 1 naming the first mismatch otherwise.
"""

import argparse
import base64
import binascii
import hashlib
import json
import re
import sys
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ROOT = Path(__file__).resolve().parent.parent
ED25519_TYPE = 0x01
SIGNATURE_PREFIX = "\u2014 ".encode()  # em dash, space
MAX_NOTE_BYTES = 1 << 20
MAX_SIGNATURES = 100


class Mismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


def b64decode_canonical(text, what):
    """Standard base64 with padding, accepting only the one spelling an encoder writes."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Mismatch(f"{what} is not base64")
    expect(base64.b64encode(raw).decode() == text, f"{what} is not canonical base64")
    return raw


# --- signed notes (c2sp.org/signed-note) ---------------------------------------------------------------------


def valid_key_name(name):
    return name != "" and "+" not in name and not any(c.isspace() or ord(c) < 0x20 for c in name)


def key_id(name, public_key):
    return hashlib.sha256(name.encode() + b"\n" + bytes([ED25519_TYPE]) + public_key).digest()[:4]


def parse_verifier_key(text):
    """NAME+KEYID+BASE64(0x01 || 32-byte Ed25519 public key), key ID as 8 lowercase hex digits."""
    name, _, rest = text.partition("+")
    hex_id, _, key64 = rest.partition("+")
    expect(valid_key_name(name), f"verifier key name {name!r} is not a valid key name")
    expect(re.fullmatch(r"[0-9a-f]{8}", hex_id) is not None, "verifier key ID is not 8 lowercase hex digits")
    key = b64decode_canonical(key64, "verifier key")
    expect(len(key) == 33 and key[0] == ED25519_TYPE, "verifier key is not 0x01 and a 32-byte Ed25519 key")
    public_key = key[1:]
    expect(key_id(name, public_key).hex() == hex_id, "verifier key ID does not match its name and key")
    return name, bytes.fromhex(hex_id), public_key


def parse_note(data):
    """Returns (text bytes, [(name, key id bytes, signature bytes)])."""
    expect(len(data) <= MAX_NOTE_BYTES, "note is larger than 1 MiB")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise Mismatch("note is not UTF-8")
    expect(all(b >= 0x20 or b == 0x0A for b in data), "note holds a control character other than newline")
    split = data.rfind(b"\n\n")
    expect(split >= 0, "note has no blank line before its signatures")
    text, block = data[: split + 1], data[split + 2 :]
    expect(block.endswith(b"\n"), "note does not end with a signature line and a newline")
    lines = block[:-1].split(b"\n")
    expect(len(lines) <= MAX_SIGNATURES, "note has more than 100 signatures")
    signatures = []
    for line in lines:
        expect(line.startswith(SIGNATURE_PREFIX), f"signature line {line!r} does not start with an em dash and space")
        name, space, sig64 = line[len(SIGNATURE_PREFIX) :].decode().partition(" ")
        expect(space == " " and valid_key_name(name), f"signature line {line!r} has no valid key name")
        raw = b64decode_canonical(sig64, f"signature of {name}")
        expect(len(raw) > 4, f"signature of {name} is too short")
        signatures.append((name, raw[:4], raw[4:]))
    return text, signatures


def verify_note(data, verifier):
    """Signatures from unknown keys are ignored; the trusted key's must verify, and there must be one."""
    name, kid, public_key = verifier
    text, signatures = parse_note(data)
    trusted = [sig for (n, k, sig) in signatures if n == name and k == kid]
    expect(len(trusted) == 1, f"note carries {len(trusted)} signatures from {name} (needs exactly 1)")
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(trusted[0], text)
    except InvalidSignature:
        raise Mismatch(f"the signature of {name} does not verify")
    return text


# --- checkpoints (c2sp.org/tlog-checkpoint) ------------------------------------------------------------------


def parse_checkpoint(text):
    expect(text.endswith(b"\n"), "checkpoint text does not end with a newline")
    lines = text[:-1].decode().split("\n")
    expect(len(lines) >= 3 and all(lines), "checkpoint needs 3 or more non-empty lines")
    origin, size, root = lines[0], lines[1], lines[2]
    expect(re.fullmatch(r"0|[1-9][0-9]*", size) is not None and int(size) < 2**64, f"size {size!r} is not canonical")
    root_hash = b64decode_canonical(root, "root hash")
    expect(len(root_hash) == 32, "root hash is not 32 bytes")
    return origin, int(size), root_hash, lines[3:]


def open_checkpoint(note, verifier_key, origin):
    verifier = parse_verifier_key(verifier_key)
    checkpoint = parse_checkpoint(verify_note(note, verifier))
    expect(checkpoint[0] == origin, f"checkpoint origin {checkpoint[0]!r} is not {origin!r}")
    return checkpoint


# --- RFC 9162 Merkle trees -----------------------------------------------------------------------------------


def leaf_hash(leaf):
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def tree_head(leaf_hashes):
    if not leaf_hashes:
        return hashlib.sha256(b"").digest()
    if len(leaf_hashes) == 1:
        return leaf_hashes[0]
    k = 1
    while 2 * k < len(leaf_hashes):
        k *= 2
    return node_hash(tree_head(leaf_hashes[:k]), tree_head(leaf_hashes[k:]))


def verify_inclusion(leaf, index, size, proof, root):
    """RFC 9162 section 2.1.3.2."""
    expect(index < size, "leaf index is not below the tree size")
    expect(all(len(h) == 32 for h in [leaf, root] + proof), "a hash is not 32 bytes")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        expect(sn != 0, "inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    expect(sn == 0, "inclusion proof is too short")
    expect(r == root, "inclusion proof does not lead to the root")


def verify_consistency(size1, size2, proof, root1, root2):
    """RFC 9162 section 2.1.4.2; a proof from the empty tree proves nothing and is refused."""
    expect(0 < size1 <= size2, "sizes are not 0 < size1 <= size2")
    if size1 == size2:
        expect(not proof and root1 == root2, "equal sizes need an empty proof and equal roots")
        return
    expect(proof, "consistency proof is empty")
    expect(all(len(h) == 32 for h in [root1, root2] + proof), "a hash is not 32 bytes")
    path = [root1] + proof if size1 & (size1 - 1) == 0 else list(proof)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        expect(sn != 0, "consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    expect(sn == 0, "consistency proof is too short")
    expect(fr == root1, "consistency proof does not lead to the old root")
    expect(sr == root2, "consistency proof does not lead to the new root")


# --- the two checks ------------------------------------------------------------------------------------------


def check_vector(path):
    vector = json.loads(path.read_text())
    origin, size, root, extensions = open_checkpoint(vector["note"].encode(), vector["verifierKey"], vector["origin"])
    expect(size == vector["size"] and base64.b64encode(root).decode() == vector["rootHash"], "checkpoint fields")
    leaves = [leaf_hash(base64.b64decode(leaf)) for leaf in vector["leaves"]]
    expect(len(leaves) == size and tree_head(leaves) == root, "the leaves do not make the checkpoint's root")

    inclusion = vector["inclusion"]
    expect(inclusion["treeSize"] == size, "the inclusion proof is not for the checkpoint's tree")
    index = inclusion["leafIndex"]
    proof = [base64.b64decode(h) for h in inclusion["proof"]]
    verify_inclusion(leaves[index], index, size, proof, root)

    consistency = vector["consistency"]
    old_size = consistency["oldSize"]
    old_root = base64.b64decode(consistency["oldRootHash"])
    expect(tree_head(leaves[:old_size]) == old_root and consistency["newSize"] == size, "consistency tree heads")
    verify_consistency(old_size, size, [base64.b64decode(h) for h in consistency["proof"]], old_root, root)

    # The same note must be refused when changed or checked against another key.
    note = vector["note"].encode()
    for changed in [note.replace(b"\n", b"\n ", 1), note.replace("\u2014".encode(), b"-"), note + b"x"]:
        try:
            open_checkpoint(changed, vector["verifierKey"], vector["origin"])
        except Mismatch:
            continue
        raise Mismatch("a changed note still verifies")
    print(f"ok: {path.relative_to(ROOT)}: {origin} size {size}, signature, leaves, inclusion and consistency proofs")


def check_merkle_vectors(folder):
    expect(folder.is_dir(), f"Merkle vectors missing: {folder}")
    counts = {"inclusion": 0, "consistency": 0}
    for kind in counts:
        for path in sorted((folder / kind).rglob("*.json")):
            case = json.loads(path.read_text())
            proof = [base64.b64decode(h) for h in case["proof"] or []]
            try:
                if kind == "inclusion":
                    leaf, root = base64.b64decode(case["leafHash"]), base64.b64decode(case["root"])
                    verify_inclusion(leaf, case["leafIdx"], case["treeSize"], proof, root)
                else:
                    root1, root2 = base64.b64decode(case["root1"]), base64.b64decode(case["root2"])
                    verify_consistency(case["size1"], case["size2"], proof, root1, root2)
                refused = False
            except Mismatch:
                refused = True
            name = path.relative_to(folder)
            expect(refused == case["wantErr"], f"{name}: refused={refused}, wantErr={case['wantErr']}")
            counts[kind] += 1
    expect(counts["inclusion"] > 0 and counts["consistency"] > 0, "no Merkle vectors found")
    print(f"ok: {counts['inclusion']} inclusion and {counts['consistency']} consistency vectors decided as published")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vector", type=Path, default=ROOT / "schema/vectors/checkpoint-v1.json")
    parser.add_argument("--merkle", type=Path, default=ROOT.parent / "shared/vectors/merkle/testdata")
    parser.add_argument("--note", type=Path, help="a checkpoint note to verify instead of the vectors")
    parser.add_argument("--verifier-key", help="NAME+KEYID+KEY the note must be signed by")
    parser.add_argument("--origin", help="the origin the checkpoint must name")
    args = parser.parse_args()
    try:
        if args.note:
            expect(args.verifier_key and args.origin, "--note needs --verifier-key and --origin")
            origin, size, root, _ = open_checkpoint(args.note.read_bytes(), args.verifier_key, args.origin)
            print(f"ok: {origin} size {size} root {base64.b64encode(root).decode()}")
        else:
            check_vector(args.vector)
            check_merkle_vectors(args.merkle)
    except Mismatch as mismatch:
        print(f"FAILED: {mismatch}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
