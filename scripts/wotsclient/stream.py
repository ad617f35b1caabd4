"""The WebSocket stream `GET /v1/stream` (schema/openapi.yaml's description; Sources/WotsCore/API/StreamFrame.swift).

After the upgrade the relay answers `{"type": "ready", "token": …}`, then pushes `message` frames (queued mail,
then live). The client acknowledges with `ack` frames (format: wotsclient.acks) and may `send` envelopes.
"""

import itertools
import json
import threading

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from .acks import MessageRef, stream_ack_frame


class StreamClosed(Exception):
    """The relay closed the stream (or the connection broke); `code` and `reason` are the close frame's."""

    def __init__(self, code=None, reason=""):
        super().__init__(f"stream closed (code {code}{', ' + reason if reason else ''})")
        self.code = code
        self.reason = reason


class StreamRefused(Exception):
    """The relay answered the authentication with an `error` frame."""

    def __init__(self, frame):
        super().__init__(f"stream refused: {frame.get('code')}: {frame.get('message')}")
        self.frame = frame


def message_ref(frame):
    """The (sender, id) of a `message` frame."""
    envelope = frame["envelope"]
    return MessageRef(envelope["sender"], envelope["id"].lower())


class Stream:
    """One authenticated stream. `next_frame` is for one reader thread; `ack` and `send` may be called from others.

    auth: "header" puts `Authorization: Bearer` on the upgrade; "frame" sends an `auth` first frame instead.
    """

    _refs = itertools.count(1)

    def __init__(self, base_url, session, auth="header", timeout=10.0, max_size=1 << 22):
        url = "ws" + base_url[len("http"):].rstrip("/") + "/v1/stream"
        headers = {"Authorization": f"Bearer {session}"} if auth == "header" else None
        self._socket = connect(url, additional_headers=headers, open_timeout=timeout, close_timeout=2,
                               max_size=max_size, compression=None)
        self._send_lock = threading.Lock()
        try:
            if auth == "frame":
                self._send({"type": "auth", "session": session})
            first = self.next_frame(timeout)
        except BaseException:
            self._socket.close()
            raise
        if first.get("type") != "ready":
            self._socket.close()
            raise StreamRefused(first)
        self.token = first["token"]

    def next_frame(self, timeout):
        """The next relay frame as a dict. Raises TimeoutError after `timeout` seconds, StreamClosed at the end."""
        try:
            text = self._socket.recv(timeout=timeout)
        except ConnectionClosed as closed:
            frame = closed.rcvd
            raise StreamClosed(frame.code if frame else None, frame.reason if frame else "") from None
        if isinstance(text, bytes):
            raise ValueError("the relay sent a binary frame; the protocol is JSON text")
        return json.loads(text)

    def _send(self, frame):
        try:
            with self._send_lock:
                self._socket.send(json.dumps(frame, separators=(",", ":")))
        except ConnectionClosed as closed:
            frame = closed.rcvd
            raise StreamClosed(frame.code if frame else None, frame.reason if frame else "") from None

    def ack(self, refs):
        """Sends one `ack` frame for these MessageRefs; returns the frame's `ref` (used only by the pairs format)."""
        ref = f"ack-{next(self._refs)}"
        self._send(stream_ack_frame(list(refs), ref))
        return ref

    def send_envelope(self, envelope):
        self._send({"type": "send", "envelope": envelope.to_json()})

    def close(self):
        self._socket.close()
