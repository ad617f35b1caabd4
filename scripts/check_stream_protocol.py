#!/usr/bin/env python3
"""Checks a live relay's WebSocket stream against schema/stream.md and schema/stream-frames.schema.json.

Usage: scripts/check_stream_protocol.py RELAY_BINARY

Starts the relay on a temporary SQLite file, registers two users with the independent Python client
(scripts/wotsclient), then sends every client frame type, and malformed ones, and checks that each gets exactly one
reply carrying its `ref`, that every frame the relay sends validates against the JSON Schema, and the close codes.
Exits 1 naming every check that failed.
"""

import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

from jsonschema import Draft202012Validator
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from faulttest.process import RelayProcess  # noqa: E402
from wotsclient import Identity, RelayClient, seal  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "schema/stream-frames.schema.json").read_text())
RELAY_FRAME = Draft202012Validator({**SCHEMA, "$ref": "#/$defs/RelayFrame"})
CLIENT_FRAME = Draft202012Validator({**SCHEMA, "$ref": "#/$defs/ClientFrame"})

failures = []


def check(condition, what, detail=""):
    print(f"  {'PASS' if condition else 'FAIL'}  {what}{' — ' + detail if detail else ''}", flush=True)
    if not condition:
        failures.append(what)


class Socket:
    """A raw stream socket: frames in and out as dicts, every relay frame validated against the schema."""

    def __init__(self, base_url, session=None):
        headers = {"Authorization": f"Bearer {session}"} if session else None
        url = "ws" + base_url[len("http"):] + "/v1/stream"
        self.socket = connect(url, additional_headers=headers, open_timeout=10, max_size=1 << 22, compression=None)

    def send(self, frame):
        if isinstance(frame, dict):
            errors = list(CLIENT_FRAME.iter_errors(frame))
            if frame.get("type") in ("auth", "ack", "send", "subscribe") and len(frame.get("ref", "")) <= 64:
                check(not errors, f"the client frame {frame['type']} fits the schema",
                      "; ".join(error.message for error in errors[:2]))
            frame = json.dumps(frame)
        self.socket.send(frame)

    def next(self, timeout=5.0):
        """The next relay frame, validated; None on a timeout. Raises ConnectionClosed at the end."""
        try:
            text = self.socket.recv(timeout=timeout)
        except TimeoutError:
            return None
        frame = json.loads(text)
        errors = list(RELAY_FRAME.iter_errors(frame))
        check(not errors, f"the relay frame {frame.get('type')} fits the schema",
              "; ".join(error.message for error in errors[:2]))
        return frame

    def reply(self, timeout=5.0):
        """The next frame that is a reply (not `message` or `directory`)."""
        while True:
            frame = self.next(timeout)
            if frame is None or frame["type"] not in ("message", "directory"):
                return frame

    def close_code(self, timeout=5.0):
        """The relay's close code once it closes, or None if it stays open."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.socket.recv(timeout=deadline - time.monotonic())
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
        except TimeoutError:
            return None
        return None

    def close(self):
        self.socket.close()


def expect_reply(socket, frame, wanted_type, what, **fields):
    socket.send(frame)
    reply = socket.reply()
    ok = reply is not None and reply["type"] == wanted_type and reply.get("ref") == (
        frame.get("ref") if isinstance(frame, dict) else fields.pop("ref", None))
    ok = ok and all(reply.get(key) == value for key, value in fields.items())
    check(ok, what, json.dumps(reply)[:240] if reply else "no reply within 5 s")
    return reply


def main():
    binary = sys.argv[1]
    work = Path(tempfile.mkdtemp(prefix="wots-stream-"))
    relay = RelayProcess(binary, f"sqlite:{work}/relay.sqlite", work / "relay.log",
                         ["--send-rate", "100000", "--registrations-per-minute", "100000"])
    base = relay.start()
    try:
        run(base)
    finally:
        relay.terminate(10)
    print(f"{len(failures)} failed" if failures else "stream protocol: every check passed")
    return 1 if failures else 0


def carol_public(client):
    """A registered recipient with no socket open."""
    carol = Identity.generate()
    client.register(carol)
    return carol.public


def run(base):
    client = RelayClient(base)
    alice, bob = Identity.generate(), Identity.generate()
    client.register(alice)
    client.register(bob)
    alice_session, bob_session = client.login(alice), client.login(bob)

    print("--- authentication", flush=True)
    socket = Socket(base)
    expect_reply(socket, {"type": "auth", "ref": "r-auth", "session": alice_session}, "ready",
                 "an auth frame is answered by ready with its ref", token=alice.token)
    expect_reply(socket, {"type": "auth", "ref": "r-again", "session": alice_session}, "error",
                 "a second auth frame is refused with its ref", code="already_authenticated")

    reader = Socket(base, bob_session)
    ready = reader.next()
    check(ready is not None and ready["type"] == "ready" and "ref" not in ready,
          "a header-authenticated socket starts with ready, without ref", json.dumps(ready))

    print("--- send, message, ack", flush=True)
    envelope = seal(alice, bob.public, b"over the stream")
    accepted = expect_reply(socket, {"type": "send", "ref": "r-send", "envelope": envelope.to_json()},
                            "accepted", "a send frame is answered by accepted with its ref")
    check(accepted is not None and accepted.get("id") == str(envelope.message_id).lower(),
          "accepted names the message id in lowercase", json.dumps(accepted))
    delivered = reader.next()
    check(delivered is not None and delivered["type"] == "message"
          and delivered["envelope"]["id"].lower() == str(envelope.message_id).lower(),
          "the recipient's socket gets the message", json.dumps(delivered)[:200])
    key = {"sender": alice.token, "id": str(envelope.message_id).lower()}
    expect_reply(reader, {"type": "ack", "ref": "r-ack", "messages": [key]}, "acked",
                 "an ack frame is answered by acked listing what was deleted", acknowledged=1, messages=[key])
    expect_reply(reader, {"type": "ack", "ref": "r-ack-again", "messages": [key]}, "acked",
                 "acknowledging again deletes nothing and says so", acknowledged=0, messages=[])
    too_many = [{"sender": alice.token, "id": str(uuid.uuid4())} for _ in range(1001)]
    expect_reply(reader, json.dumps({"type": "ack", "ref": "r-flood", "messages": too_many}), "error",
                 "more than 1,000 acknowledgements are refused whole", ref="r-flood", code="too_many_ids")
    forged = seal(bob, alice.public, b"pretending")
    expect_reply(socket, {"type": "send", "ref": "r-forged", "envelope": forged.to_json()}, "error",
                 "a refused send names its ref and message id", code="sender_mismatch", id=str(forged.message_id).lower())

    print("--- ephemeral send (typing)", flush=True)
    typing = seal(alice, bob.public, b'{"type":"typing","state":"started"}')
    expect_reply(socket, {"type": "send", "ref": "r-typing", "ephemeral": True, "envelope": typing.to_json()},
                 "accepted", "an ephemeral send is answered by accepted, ephemeral, delivered to the one socket",
                 ephemeral=True, delivered=1, id=str(typing.message_id).lower())
    passed = reader.next()
    check(passed is not None and passed["type"] == "message" and passed.get("ephemeral") is True
          and "seq" not in passed and passed["envelope"]["id"].lower() == str(typing.message_id).lower(),
          "the recipient's socket gets it as an ephemeral message without seq", json.dumps(passed)[:200])
    nobody = seal(alice, carol_public(client), b'{"type":"typing","state":"stopped"}')
    expect_reply(socket, {"type": "send", "ref": "r-nobody", "ephemeral": True, "envelope": nobody.to_json()},
                 "accepted", "an ephemeral send to someone not connected is delivered to no socket",
                 ephemeral=True, delivered=0)

    print("--- subscribe", flush=True)
    expect_reply(socket, {"type": "subscribe", "ref": "r-on", "directory": True}, "subscribed",
                 "subscribe is answered by subscribed", directory=True)
    carol = Identity.generate()
    client.register(carol)
    change = socket.next()
    check(change is not None and change["type"] == "directory" and change["change"] == "registered",
          "a subscribed socket hears of a registration", json.dumps(change))
    expect_reply(socket, {"type": "subscribe", "ref": "r-off", "directory": False}, "subscribed",
                 "unsubscribing is answered too", directory=False)

    print("--- malformed frames", flush=True)
    for raw, ref, code in [
        ("not json", None, "invalid_frame"),
        ('{"type": "launch", "ref": "m1"}', "m1", "invalid_frame"),
        ('{"type": "ack", "ref": "m2"}', "m2", "invalid_frame"),
        ('{"type": "ack", "ref": "m3", "messages": [{"sender": "nope", "id": "1"}]}', "m3", "invalid_token"),
        ('{"type": "subscribe", "ref": "' + "r" * 65 + '", "directory": true}', None, "invalid_frame"),
    ]:
        expect_reply(socket, raw, "error", f"a malformed frame gets one error ({raw[:40]})", ref=ref, code=code)
    socket.socket.send(b'{"type": "subscribe", "directory": true}')
    reply = socket.reply()
    check(reply is not None and reply["type"] == "error" and reply["code"] == "invalid_frame",
          "a binary frame gets an error", json.dumps(reply))
    check(socket.next(timeout=0.5) is None, "no frame is answered twice")
    expect_reply(socket, {"type": "subscribe", "ref": "r-still", "directory": False}, "subscribed",
                 "the stream goes on after every refusal", directory=False)

    print("--- close codes", flush=True)
    stranger = Socket(base)
    stranger.send({"type": "auth", "ref": "bad", "session": "A" * 43})
    refusal = stranger.next()
    check(refusal is not None and refusal["type"] == "error" and refusal.get("ref") == "bad"
          and refusal["code"] == "invalid_session", "a refused session is an error with its ref", json.dumps(refusal))
    code = stranger.close_code()
    check(code == 1008, "then the relay closes with 1008", f"close code {code}")
    for each in (socket, reader):
        each.close()


if __name__ == "__main__":
    sys.exit(main())
