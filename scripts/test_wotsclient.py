#!/usr/bin/env python3
"""Offline checks of scripts/wotsclient against SECURITY.md and the Swift-made vector in schema/vectors/.

    python3 scripts/test_wotsclient.py

No relay needed; about a second. The process-level tests trust this client, so it is checked first.
"""

import base64
import json
import os
import sys
import unittest
import uuid
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402

from wotsclient import (Envelope, Identity, MessageRef, OpenError, PublicIdentity, decode_token,  # noqa: E402
                        encode_token, open_envelope, seal)
from wotsclient import acks  # noqa: E402
from wotsclient.envelope import pad  # noqa: E402
from wotsclient.identity import PSS  # noqa: E402

VECTOR = Path(__file__).resolve().parent.parent / "schema" / "vectors" / "envelope-v1.json"


def vector_identity(person):
    load = lambda field: serialization.load_der_private_key(base64.b64decode(person[field]), None)  # noqa: E731
    return Identity(decode_token(person["token"]), load("signingPrivateKey"), load("encryptionPrivateKey"),
                    person["nickname"])


class Tokens(unittest.TestCase):
    def test_a_token_is_26_lowercase_base32_characters_and_round_trips(self):
        raw = bytes(range(16))
        text = encode_token(raw)
        self.assertEqual(len(text), 26)
        self.assertEqual(text, text.lower())
        self.assertEqual(decode_token(text), raw)

    def test_uppercase_or_short_tokens_are_refused(self):
        text = encode_token(os.urandom(16))
        for bad in (text.upper(), text[:-1], text + "a"):
            with self.assertRaises(ValueError):
                decode_token(bad)


class TheSwiftVector(unittest.TestCase):
    def setUp(self):
        self.vector = json.loads(VECTOR.read_text(encoding="utf-8"))
        self.sender = vector_identity(self.vector["sender"])
        self.recipient = vector_identity(self.vector["recipient"])

    def test_keys_give_the_vectors_token_and_fingerprint(self):
        self.assertEqual(self.sender.token, self.vector["sender"]["token"])
        self.assertEqual(self.sender.fingerprint.hex(), self.vector["sender"]["fingerprint"])

    def test_binary_and_json_forms_agree_byte_for_byte(self):
        envelope = Envelope.parse(base64.b64decode(self.vector["serialized"]))
        self.assertEqual(envelope.serialize(), base64.b64decode(self.vector["serialized"]))
        self.assertEqual(envelope.to_json(), self.vector["envelope"])
        self.assertEqual(Envelope.from_json(self.vector["envelope"]), envelope)

    def test_the_vector_opens_to_its_plaintext(self):
        envelope = Envelope.from_json(self.vector["envelope"])
        opened = open_envelope(self.recipient, envelope, self.sender.public)
        self.assertEqual(opened, self.vector["plaintext"].encode("utf-8"))


class Sealing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.alice, cls.bob, cls.mallory = (Identity.generate(name) for name in ("alice", "bob", "mallory"))

    def test_padding_always_adds_at_least_one_byte_up_to_a_multiple_of_256(self):
        self.assertEqual(len(pad(b"")), 256)
        self.assertEqual(len(pad(b"x" * 255)), 256)
        self.assertEqual(len(pad(b"x" * 256)), 512)

    def test_a_sealed_envelope_opens_and_has_the_documented_size(self):
        envelope = seal(self.alice, self.bob.public, b"hello")
        self.assertEqual(len(envelope.serialize()), 927)
        self.assertEqual(open_envelope(self.bob, envelope, self.alice.public), b"hello")
        self.assertEqual(Envelope.parse(envelope.serialize()), envelope)

    def test_the_signature_covers_the_labelled_bytes_with_pss_salt_32(self):
        envelope = seal(self.alice, self.bob.public, b"signed")
        self.assertTrue(envelope.signed_bytes.startswith(b"wots-envelope-v1\x00\x01"))
        self.alice.signing_key.public_key().verify(envelope.signature, envelope.signed_bytes, PSS, hashes.SHA256())

    def test_opening_refuses_in_securitys_order(self):
        envelope = seal(self.alice, self.bob.public, b"x")
        cases = [
            (self.mallory, envelope, self.alice.public, "not_for_me"),
            (self.bob, envelope, self.mallory.public, "sender_key_mismatch"),
            (self.bob, Envelope.from_json({**envelope.to_json(), "ciphertext": base64.b64encode(
                bytes([envelope.ciphertext[0] ^ 1]) + envelope.ciphertext[1:]).decode()}), self.alice.public,
             "bad_signature"),
        ]
        for opener, candidate, sender, code in cases:
            with self.subTest(code=code), self.assertRaises(OpenError) as refused:
                open_envelope(opener, candidate, sender)
            self.assertEqual(refused.exception.code, code)

    def test_ids_are_uppercase_uuid_text_on_the_wire_and_lowercase_in_refs(self):
        message_id = uuid.uuid4()
        envelope = seal(self.alice, self.bob.public, b"x", message_id=message_id)
        self.assertEqual(envelope.to_json()["id"], str(message_id).upper())
        self.assertEqual(envelope.ref, MessageRef(self.alice.token, str(message_id)))

    def test_a_directory_entry_with_a_wrong_fingerprint_is_refused(self):
        entry = {"token": self.alice.token, "publicKeys": {
            "signing": base64.b64encode(self.alice.signing_der).decode(),
            "encryption": base64.b64encode(self.alice.encryption_der).decode()}}
        self.assertEqual(PublicIdentity.from_directory_entry(entry).fingerprint, self.alice.fingerprint)
        with self.assertRaises(ValueError):
            PublicIdentity.from_directory_entry({**entry, "fingerprint": "00" * 32})


class Acknowledgements(unittest.TestCase):
    refs = [MessageRef("a" * 26, "3f2504e0-4f89-41d3-9a0c-0305e82c3301")]

    def tearDown(self):
        acks.set_ack_format(os.environ.get("WOTS_ACK_FORMAT", "pairs"))

    def test_pairs_name_sender_and_id(self):
        acks.set_ack_format("pairs")
        pair = {"sender": "a" * 26, "id": "3F2504E0-4F89-41D3-9A0C-0305E82C3301"}
        self.assertEqual(acks.http_ack_body(self.refs), {"messages": [pair]})
        self.assertEqual(acks.stream_ack_frame(self.refs, "r1"), {"type": "ack", "ref": "r1", "messages": [pair]})

    def test_ids_name_the_id_alone(self):
        acks.set_ack_format("ids")
        self.assertEqual(acks.http_ack_body(self.refs), {"ids": ["3F2504E0-4F89-41D3-9A0C-0305E82C3301"]})
        self.assertEqual(acks.stream_ack_frame(self.refs, "r1"),
                         {"type": "ack", "ids": ["3F2504E0-4F89-41D3-9A0C-0305E82C3301"]})

    def test_an_unknown_format_is_refused(self):
        with self.assertRaises(ValueError):
            acks.set_ack_format("both")


class Registration(unittest.TestCase):
    def test_the_proof_is_a_pss_signature_over_the_documented_bytes(self):
        person = Identity.generate("Carol")
        relay_id = bytes(range(16))
        request = person.registration_request(relay_id)
        self.assertEqual(request["nickname"], "carol")
        expected = (b"wots-register-v2\x00" + b"\x00\x10" + relay_id + person.token_bytes + b"\x00\x05carol"
                    + len(person.signing_der).to_bytes(2, "big") + person.signing_der
                    + len(person.encryption_der).to_bytes(2, "big") + person.encryption_der)
        self.assertEqual(person.registration_proof_bytes(relay_id), expected)
        person.signing_key.public_key().verify(base64.b64decode(request["proof"]), expected, PSS, hashes.SHA256())


if __name__ == "__main__":
    unittest.main(verbosity=1)
