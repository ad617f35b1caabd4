"""Acknowledgements, in ONE place, because their wire form is changing.

Two formats, chosen by the module-level `ACK_FORMAT` (environment `WOTS_ACK_FORMAT` overrides the default):

- `"pairs"` (default; the relay after issue 12): messages are named by (sender, id).
  HTTP `POST /v1/messages/ack` `{"messages": [{"sender": TOKEN, "id": UUID}, …]}` → `{"acknowledged": N}`;
  WebSocket `{"type": "ack", "ref": R, "messages": […]}` → `{"type": "acked", "ref": R, "acknowledged": N}`.
- `"ids"` (the relay before issue 12): HTTP `{"ids": [UUID, …]}`; WebSocket `{"type": "ack", "ids": […]}`, which
  gets no reply.
"""

import os
from collections import namedtuple

FORMATS = ("pairs", "ids")
ACK_FORMAT = os.environ.get("WOTS_ACK_FORMAT", "pairs")
if ACK_FORMAT not in FORMATS:
    raise SystemExit(f"WOTS_ACK_FORMAT={ACK_FORMAT!r} is not one of {', '.join(FORMATS)}")

#: A message as the relay and a recipient identify it. `id` is the lowercase UUID text.
MessageRef = namedtuple("MessageRef", "sender id")


def ack_format():
    return ACK_FORMAT


def set_ack_format(name):
    """Switches the format for this process (what `WOTS_ACK_FORMAT` does at import)."""
    global ACK_FORMAT
    if name not in FORMATS:
        raise ValueError(f"ack format {name!r} is not one of {', '.join(FORMATS)}")
    ACK_FORMAT = name


def stream_ack_is_answered():
    """Whether the relay answers a WebSocket ack frame (with `acked`)."""
    return ACK_FORMAT == "pairs"


def _id_text(ref):
    return ref.id.upper()


def http_ack_body(refs):
    if ACK_FORMAT == "pairs":
        return {"messages": [{"sender": ref.sender, "id": _id_text(ref)} for ref in refs]}
    return {"ids": [_id_text(ref) for ref in refs]}


def stream_ack_frame(refs, ref_text):
    if ACK_FORMAT == "pairs":
        return {"type": "ack", "ref": ref_text,
                "messages": [{"sender": ref.sender, "id": _id_text(ref)} for ref in refs]}
    return {"type": "ack", "ids": [_id_text(ref) for ref in refs]}
