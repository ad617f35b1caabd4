"""The relay's HTTP API (schema/openapi.yaml) over keep-alive connections, one per thread and relay address.

Every call has a deadline (`timeout`, seconds, per request): a relay that never answers raises `TimeoutError`
instead of blocking the caller. Transport failures raise `OSError`; HTTP refusals come back as a `Response` (or, from
the convenience methods that need success, as `RelayError`).
"""

import http.client
import json
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from .acks import http_ack_body
from .encoding import b64, unb64


@dataclass
class Response:
    status: int
    headers: dict
    body: object
    started: float = 0.0
    answered: float = 0.0
    raw: bytes = field(default=b"", repr=False)

    @property
    def error_code(self):
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("code")
        return None

    @property
    def retry_after(self):
        return self.headers.get("retry-after")

    @property
    def seconds(self):
        return self.answered - self.started


class RelayError(Exception):
    def __init__(self, what, response):
        super().__init__(f"{what}: HTTP {response.status} {response.error_code or ''} {_excerpt(response.raw)}")
        self.response = response


def _excerpt(raw):
    return raw[:200].decode("utf-8", "replace")


# Failures of a reused keep-alive connection that the relay may have closed between requests: retried once on a
# fresh connection (every call here is safe to repeat: sends are idempotent by (sender, id)).
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.CannotSendRequest)


class RelayClient:
    def __init__(self, base_url, timeout=10.0):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme != "http" or not parsed.hostname:
            raise ValueError(f"relay URL {base_url!r} must be http://HOST:PORT")
        self.base_url = base_url.rstrip("/")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.timeout = timeout
        self._local = threading.local()

    # --- transport ---------------------------------------------------------------------------------------------

    def _connection(self, timeout):
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            self._local.connection = connection
            self._local.used = False
        connection.timeout = timeout
        if connection.sock is not None:
            connection.sock.settimeout(timeout)
        return connection

    def _drop_connection(self):
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
        self._local.connection = None

    def close(self):
        """Closes this thread's connection."""
        self._drop_connection()

    def request(self, method, path, body=None, session=None, timeout=None):
        """One request; returns a Response whatever the status. Raises TimeoutError when no answer came within
        `timeout` seconds (the connection is dropped then), OSError when the transport failed."""
        timeout = self.timeout if timeout is None else timeout
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = {"Accept": "application/json"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if session is not None:
            headers["Authorization"] = f"Bearer {session}"
        started = time.monotonic()
        for attempt in (1, 2):
            connection = self._connection(timeout)
            reused = getattr(self._local, "used", False)
            try:
                connection.request(method, path, body=payload, headers=headers)
                self._local.used = True
                answer = connection.getresponse()
                raw = answer.read()
                answered = time.monotonic()
                response_headers = {name.lower(): value for name, value in answer.getheaders()}
                if answer.getheader("connection", "").lower() == "close":
                    self._drop_connection()
                break
            except (socket.timeout, TimeoutError):
                self._drop_connection()
                raise TimeoutError(f"{method} {path}: no answer within {timeout:g} s") from None
            except _STALE:
                self._drop_connection()
                if attempt == 2 or not reused:
                    raise
            except OSError:
                self._drop_connection()
                raise
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return Response(answer.status, response_headers, parsed, started, answered, raw)

    def _expect(self, what, response, *statuses):
        if response.status not in statuses:
            raise RelayError(what, response)
        return response.body

    # --- API ---------------------------------------------------------------------------------------------------

    def healthz(self, timeout=None):
        return self.request("GET", "/healthz", timeout=timeout)

    def readyz(self, timeout=None):
        return self.request("GET", "/readyz", timeout=timeout)

    def relay_id(self):
        """`GET /v1/relay`; the relay's id as bytes (signed by registration proofs)."""
        return unb64(self._expect("relay id", self.request("GET", "/v1/relay"), 200)["relayID"])

    def register(self, identity):
        """`POST /v1/register`; returns the DirectoryEntry."""
        request = identity.registration_request(self.relay_id())
        return self._expect("register", self.request("POST", "/v1/register", request), 201)

    def directory_entry(self, token):
        return self._expect("directory", self.request("GET", f"/v1/directory/token/{token}"), 200)

    def challenge(self):
        """`POST /v1/auth/challenge`; returns (relay id, nonce) as bytes."""
        body = self._expect("challenge", self.request("POST", "/v1/auth/challenge", {}), 200)
        return unb64(body["relayID"]), unb64(body["nonce"])

    def login(self, identity):
        """Challenge, signed login bytes, bearer session: returns the session string."""
        relay_id, nonce = self.challenge()
        signature = identity.sign(identity.login_bytes(relay_id, nonce))
        body = self._expect("login", self.request("POST", "/v1/auth/session", {
            "token": identity.token, "nonce": b64(nonce), "signature": b64(signature),
        }), 200)
        return body["session"]

    def send(self, session, envelope, timeout=None):
        """`POST /v1/messages`; returns the Response (202 with a SendReceipt when stored)."""
        return self.request("POST", "/v1/messages", envelope.to_json(), session=session, timeout=timeout)

    def fetch(self, session, after=0, limit=100, timeout=None):
        """`GET /v1/messages`; returns the list of DeliveredMessage objects."""
        response = self.request("GET", f"/v1/messages?after={after}&limit={limit}", session=session, timeout=timeout)
        return self._expect("fetch", response, 200)["messages"]

    def fetch_all(self, session, limit=500, timeout=None):
        """Every message in the mailbox, following `seq`."""
        messages, after = [], 0
        while True:
            page = self.fetch(session, after=after, limit=limit, timeout=timeout)
            messages.extend(page)
            if len(page) < limit:
                return messages
            after = page[-1]["seq"]

    def ack_response(self, session, refs, timeout=None):
        return self.request("POST", "/v1/messages/ack", http_ack_body(refs), session=session, timeout=timeout)

    def ack(self, session, refs, timeout=None):
        """Acknowledges MessageRefs (format: wotsclient.acks); returns how many the relay deleted."""
        return self._expect("ack", self.ack_response(session, refs, timeout), 200)["acknowledged"]

    def delete_account(self, identity, session, timeout=None):
        """`POST /v1/account/delete` with a fresh deletion statement signed by `identity`."""
        relay_id, nonce = self.challenge()
        body = {"nonce": b64(nonce), "signature": b64(identity.sign(identity.deletion_bytes(relay_id, nonce)))}
        return self.request("POST", "/v1/account/delete", body, session=session, timeout=timeout)
