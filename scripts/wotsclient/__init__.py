"""An independent Wots client, written from SECURITY.md and schema/openapi.yaml only.

Nothing here is generated from or shares code with the Swift implementation, so a relay (or a Swift client) that
disagreed with the documents would fail against it. Used by the process-level fault tests and usable by any other
script that needs real users, real envelopes and a real WebSocket recipient:

    from wotsclient import Identity, RelayClient, seal, open_envelope, Stream

Dependencies: the standard library, `cryptography` and `websockets` (pinned in scripts/requirements-test.txt).
"""

from .acks import MessageRef, ack_format, http_ack_body, set_ack_format, stream_ack_frame
from .encoding import decode_token, encode_token
from .envelope import Envelope, OpenError, open_envelope, seal
from .identity import Identity, PublicIdentity
from .relay import RelayClient, RelayError, Response
from .stream import Stream, StreamClosed

__all__ = [
    "MessageRef", "ack_format", "set_ack_format", "http_ack_body", "stream_ack_frame",
    "decode_token", "encode_token",
    "Envelope", "OpenError", "open_envelope", "seal",
    "Identity", "PublicIdentity",
    "RelayClient", "RelayError", "Response",
    "Stream", "StreamClosed",
]
