#!/usr/bin/env python3
"""Audit a Wots relay's transparency log from the outside, with Python's `cryptography` and no Wots code.

Written from SECURITY.md ("Key transparency"), RFC 9162 and the C2SP signed-note and tlog-checkpoint specifications
(the note and proof checks are scripts/check_signed_note.py's, the RSA-PSS encodings scripts/check_interop.py's).

Usage:
  scripts/check_transparency_log.py --url http://127.0.0.1:PORT
      Audits a running relay: verifies its signed checkpoint with the log key it publishes in GET /v1/relay,
      fetches every leaf (GET /v1/log/entries, 100 at a time), recomputes the tree head, parses every leaf by the
      byte layout in SECURITY.md, checks each token's chain of leaves and every user signature in them, verifies an
      inclusion proof for every leaf and a consistency proof from every smaller size, and checks that each live
      directory entry's lookup proves its newest leaf.
  scripts/check_transparency_log.py --relay-bin PATH/wots-relay
      Starts that relay on a throwaway SQLite file, registers accounts and rotates one account's keys from Python,
      checks that the log grew consistently, restarts the relay (same log key, same log), then audits it as above.

Exits 0 when everything checks out; exits 1 naming the first mismatch otherwise.
"""

import argparse
import json
import struct
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_interop as interop  # noqa: E402  (RSA-PSS encodings of SECURITY.md, the Python account)
import check_signed_note as notes  # noqa: E402  (C2SP signed notes, RFC 9162 proofs)

from check_signed_note import Mismatch, expect  # noqa: E402

LABEL = b"wots-log-v1\x00"
KINDS = {1: "registered", 2: "keysRotated", 3: "deleted", 4: "withdrawn"}
MAX_ENTRIES = 100


# --- SECURITY.md, "Log entries" ----------------------------------------------------------------------------------


class Reader:
    def __init__(self, data):
        self.data, self.offset = data, 0

    def take(self, count, what):
        expect(self.offset + count <= len(self.data), f"leaf cut short in {what}")
        chunk = self.data[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def u8(self, what):
        return self.take(1, what)[0]

    def u64(self, what):
        return struct.unpack(">Q", self.take(8, what))[0]

    def prefixed(self, what):
        return self.take(struct.unpack(">H", self.take(2, what))[0], what)


def parse_leaf(leaf):
    reader = Reader(leaf)
    expect(reader.take(len(LABEL), "label") == LABEL, "leaf does not start with wots-log-v1\\0")
    kind = reader.u8("kind")
    expect(kind in KINDS, f"leaf kind {kind} is not 1–4")
    event = {"kind": KINDS[kind], "token": reader.take(16, "token")}
    nickname = reader.prefixed("nickname")
    event["nickname"] = nickname.decode()
    expect(event["nickname"] == event["nickname"].lower(), "leaf nickname is not lower-case")
    event["signing"], event["encryption"] = reader.prefixed("signing key"), reader.prefixed("encryption key")
    event["time"], previous = reader.u64("time"), reader.u64("previous leaf")
    event["previous"] = previous - 1 if previous else None
    event["attestation"] = reader.prefixed("attestation")
    expect(reader.offset == len(leaf), f"leaf has {len(leaf) - reader.offset} bytes after its attestation")
    return event


def rotation_bytes(token, old_fingerprint, signing, encryption):
    return b"wots-rotate-v1\x00" + token + old_fingerprint + interop.u16(signing) + interop.u16(encryption)


def check_attestation(event, relay_id, previous):
    if event["kind"] == "registered":
        message = interop.registration_bytes(relay_id, event["token"], event["nickname"], event["signing"],
                                             event["encryption"])
        expect(interop.pss_verifies(event["signing"], event["attestation"], message),
               f"registration of {event['nickname']} is not signed by its own key for this relay")
    elif event["kind"] == "keysRotated":
        reader = Reader(event["attestation"])
        old, new = reader.prefixed("old signature"), reader.prefixed("new signature")
        expect(reader.offset == len(event["attestation"]), "rotation attestation has trailing bytes")
        message = rotation_bytes(event["token"], interop.fingerprint(previous["signing"], previous["encryption"]),
                                 event["signing"], event["encryption"])
        expect(interop.pss_verifies(previous["signing"], old, message), "rotation not signed by the old key")
        expect(interop.pss_verifies(event["signing"], new, message), "rotation not signed by the new key")


# --- talking to the relay ----------------------------------------------------------------------------------------


def fetch(url, path):
    with urllib.request.urlopen(url + path, timeout=30) as response:
        return response.read()


def fetch_json(url, path):
    return json.loads(fetch(url, path))


def checkpoint(url, verifier_key, origin):
    return notes.open_checkpoint(fetch(url, "/v1/log/checkpoint"), verifier_key, origin)


def identity(url):
    relay = fetch_json(url, "/v1/relay")
    expect(relay.get("logKey"), "GET /v1/relay names no log key")
    relay_id = interop.unb64(relay["relayID"])
    origin = relay["logKey"].split("+")[0]
    expect(origin == "wots-relay/" + relay_id.hex(), f"log origin {origin!r} is not wots-relay/<relay id in hex>")
    return relay_id, relay["logKey"], origin


def consistency(url, old, new):
    """Checks the relay's consistency proof between two verified checkpoints (origin, size, root, extensions)."""
    if old[1] == 0:
        return
    proof = fetch_json(url, f"/v1/log/proof/consistency?from={old[1]}&to={new[1]}")
    hashes = [notes.b64decode_canonical(h, "proof hash") for h in proof["hashes"]]
    notes.verify_consistency(old[1], new[1], hashes, old[2], new[2])


def audit(url):
    relay_id, verifier_key, origin = identity(url)
    _, size, root, _ = head = checkpoint(url, verifier_key, origin)
    leaves = []
    for start in range(0, size, MAX_ENTRIES):
        page = fetch_json(url, f"/v1/log/entries?start={start}&end={min(size, start + MAX_ENTRIES)}")
        expect(page["start"] == start, "entries page starts elsewhere")
        leaves += [notes.b64decode_canonical(leaf, "leaf") for leaf in page["entries"]]
    expect(len(leaves) == size, f"fetched {len(leaves)} leaves of {size}")
    hashes = [notes.leaf_hash(leaf) for leaf in leaves]
    expect(notes.tree_head(hashes) == root, "the leaves do not hash to the checkpoint's root")

    events, newest = [], {}
    for index, leaf in enumerate(leaves):
        event = parse_leaf(leaf)
        previous = newest.get(event["token"])
        expect(event["previous"] == previous, f"leaf {index} names leaf {event['previous']} as its token's "
                                              f"previous, not {previous}")
        check_attestation(event, relay_id, events[previous] if previous is not None else None)
        if event["kind"] != "registered":
            expect(previous is not None, f"leaf {index} ({event['kind']}) has no registration before it")
        events.append(event)
        newest[event["token"]] = index

    for index in range(size):
        proof = fetch_json(url, f"/v1/log/proof/inclusion?index={index}&size={size}")
        path = [notes.b64decode_canonical(h, "proof hash") for h in proof["hashes"]]
        notes.verify_inclusion(hashes[index], index, size, path, root)
    for old_size in range(1, size):
        old_root = notes.tree_head(hashes[:old_size])
        consistency(url, (origin, old_size, old_root, []), head)

    live = {token: index for token, index in newest.items() if events[index]["kind"] in ("registered", "keysRotated")}
    for token, index in live.items():
        lookup = fetch_json(url, f"/v1/directory/{events[index]['nickname']}")
        log = lookup["log"]
        expect(interop.token_bytes(lookup["token"]) == token, f"lookup of {events[index]['nickname']} is another token")
        expect(log["leafIndex"] == index, f"lookup of {events[index]['nickname']} names leaf {log['leafIndex']}, not {index}")
        _, seen_size, seen_root, _ = notes.open_checkpoint(log["checkpoint"].encode(), verifier_key, origin)
        path = [notes.b64decode_canonical(h, "proof hash") for h in log["proof"]]
        notes.verify_inclusion(notes.leaf_hash(notes.b64decode_canonical(log["leaf"], "leaf")), index, seen_size,
                               path, seen_root)
        expect(interop.unb64(lookup["publicKeys"]["signing"]) == events[index]["signing"],
               f"the directory shows {events[index]['nickname']} a key the log does not")
    kinds = [event["kind"] for event in events]
    return (f"{size} leaves ({', '.join(f'{kinds.count(k)} {k}' for k in KINDS.values() if kinds.count(k))}), "
            f"{len(live)} live entries proven, {size} inclusion and {max(size - 1, 0)} consistency proofs")


# --- a live relay made busy from Python --------------------------------------------------------------------------


def rotate(relay, account):
    """Replaces account's keys through POST /v1/keys/rotate, signed by the old and the new signing key."""
    session = account.log_in(relay)
    fresh = interop.Account(account.nickname)
    old_fingerprint = interop.fingerprint(account.keys["signing"], account.keys["encryption"])
    message = rotation_bytes(account.token, old_fingerprint, fresh.keys["signing"], fresh.keys["encryption"])
    fresh.token, fresh.salt = account.token, account.salt
    encryption_key, _ = interop.derive(account.secret, account.salt, **interop.FLOOR)
    sealed = interop.seal_private_keys(encryption_key, account.token, interop.os.urandom(12),
                                       interop.sealed_plaintext(interop.pkcs8(fresh.signing),
                                                                interop.pkcs8(fresh.encryption), []))
    body = {
        "publicKeys": {k: interop.b64(v) for k, v in fresh.keys.items()},
        "privateRecord": {"token": interop.token_text(account.token),
                          "keyDerivation": {"salt": interop.b64(account.salt), **interop.FLOOR},
                          "sealedPrivateKeys": interop.b64(sealed), "secretVerifier": interop.b64(account.verifier)},
        "oldKeySignature": interop.b64(account.signing.sign(message, interop.PSS, interop.hashes.SHA256())),
        "newKeySignature": interop.b64(fresh.signing.sign(message, interop.PSS, interop.hashes.SHA256())),
    }
    relay.call("POST", "/v1/keys/rotate", body, session=session)


def live(relay_bin):
    with tempfile.TemporaryDirectory(prefix="wots-log.") as folder:
        work = Path(folder)
        relay = interop.Relay(relay_bin, work)
        try:
            relay_id, verifier_key, origin = identity(relay.url)
            empty = checkpoint(relay.url, verifier_key, origin)
            expect(empty[1] == 0, f"a new relay's log holds {empty[1]} leaves")
            accounts = [interop.Account(f"log-user{number}") for number in range(3)]
            relay.call("POST", "/v1/register", accounts[0].registration(relay_id))
            first = checkpoint(relay.url, verifier_key, origin)
            for account in accounts[1:]:
                relay.call("POST", "/v1/register", account.registration(relay_id))
            rotate(relay, accounts[1])
            grown = checkpoint(relay.url, verifier_key, origin)
            expect(grown[1] == 4, f"3 registrations and a rotation made {grown[1]} leaves, not 4")
            consistency(relay.url, first, grown)
        finally:
            relay.stop()
        relay = interop.Relay(relay_bin, work)
        try:
            again = identity(relay.url)
            expect(again[1] == verifier_key, "the log key changed across a restart")
            expect(checkpoint(relay.url, verifier_key, origin)[1:3] == grown[1:3], "the log changed across a restart")
            return audit(relay.url)
        finally:
            relay.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--url", help="audit the relay at this base URL")
    group.add_argument("--relay-bin", help="start this wots-relay, fill its log, restart it and audit it")
    arguments = parser.parse_args()
    try:
        summary = audit(arguments.url.rstrip("/")) if arguments.url else live(arguments.relay_bin)
    except (Mismatch, interop.Mismatch) as mismatch:
        print(f"transparency log: MISMATCH: {mismatch}")
        return 1
    print(f"transparency log: ok: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
