"""A WebSocket recipient that acknowledges everything it receives and reconnects when the stream ends."""

import threading
import time

from wotsclient import StreamClosed
from wotsclient.acks import stream_ack_is_answered
from wotsclient.stream import Stream, StreamRefused, message_ref

ACK_BATCH = 200          # most refs in one ack frame
ACK_EVERY = 0.05         # seconds between ack frames while mail arrives
RECONNECT_PAUSE = 0.2    # seconds between reconnection attempts
ACK_RETRY_PAUSE = 1.0    # seconds before sending again an ack the relay refused (schema/stream.md, rule 4)


class Recipient:
    """Runs in its own thread. `deliveries` lists (time, ref) of every `message` frame, repeats included."""

    def __init__(self, relay_url, session):
        self.relay_url = relay_url          # may be changed (a restarted relay); read at each reconnection
        self.session = session
        self.deliveries = []
        self.seen = {}                      # ref -> times delivered
        self.connections = 0
        self.closes = []                    # (time, description)
        self.acked_frames = 0               # `acked` replies (pairs format only)
        self.acknowledged = 0               # sum of their `acknowledged`
        self.ack_frames_sent = 0
        self.errors = []                    # `error` frames
        self._pending = []                  # refs received, not yet sent in an ack frame
        self._unanswered = {}               # ack frame ref -> its refs, until `acked` or `error` answers it
        self._retry_at = 0.0                # no ack frame before this time (after a refused ack)
        self.ack_retries = 0                # ack frames refused and sent again
        self._current = None                # the open Stream, if any
        self._condition = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="recipient")

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(10)

    def wait_connected(self, deadline, after=0):
        """Waits until a stream is open that is more recent than connection number `after`."""
        with self._condition:
            while self.connections <= after or self._current is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._condition.wait(remaining)
            return True

    def wait_delivered(self, refs, deadline):
        """Waits until every ref in `refs` was delivered at least once; returns the refs still missing."""
        with self._condition:
            while True:
                missing = [ref for ref in refs if ref not in self.seen]
                remaining = deadline - time.monotonic()
                if not missing or remaining <= 0:
                    return missing
                self._condition.wait(remaining)

    def wait_acks_sent(self, deadline):
        """Waits until every received ref went out in an ack frame; returns how many are still unsent."""
        with self._condition:
            while self._pending and time.monotonic() < deadline:
                self._condition.wait(deadline - time.monotonic())
            return len(self._pending)

    def snapshot(self):
        with self._condition:
            return list(self.deliveries), dict(self.seen)

    # --- the thread --------------------------------------------------------------------------------------------

    def _run(self):
        while not self._stop.is_set():
            try:
                stream = Stream(self.relay_url, self.session, timeout=5)
            except (OSError, StreamClosed, StreamRefused, TimeoutError, Exception) as error:  # noqa: BLE001
                self._closed(f"connect failed: {type(error).__name__}: {str(error)[:120]}")
                self._stop.wait(RECONNECT_PAUSE)
                continue
            with self._condition:
                self.connections += 1
                self._current = stream
                self._condition.notify_all()
            try:
                self._serve(stream)
            except StreamClosed as closed:
                self._closed(f"closed by relay: {closed}")
            except Exception as error:  # noqa: BLE001 - any failure ends this connection; the next one resumes
                self._closed(f"{type(error).__name__}: {str(error)[:120]}")
            finally:
                stream.close()
                with self._condition:
                    self._current = None
            self._stop.wait(RECONNECT_PAUSE)

    def _closed(self, description):
        with self._condition:
            self.closes.append((time.monotonic(), description))

    def _serve(self, stream):
        last_ack = time.monotonic()
        while not self._stop.is_set():
            try:
                frame = stream.next_frame(timeout=ACK_EVERY)
            except TimeoutError:
                frame = None
            if frame is not None:
                self._handle(frame)
            now = time.monotonic()
            if self._pending and now >= self._retry_at and (
                    now - last_ack >= ACK_EVERY or len(self._pending) >= ACK_BATCH):
                with self._condition:
                    batch = self._pending[:ACK_BATCH]
                ref = stream.ack(batch)
                last_ack = now
                with self._condition:
                    self._unanswered[ref] = batch
                with self._condition:
                    del self._pending[:len(batch)]
                    self.ack_frames_sent += 1
                    self._condition.notify_all()

    def _handle(self, frame):
        kind = frame.get("type")
        with self._condition:
            if kind == "message":
                ref = message_ref(frame)
                self.deliveries.append((time.monotonic(), ref))
                self.seen[ref] = self.seen.get(ref, 0) + 1
                self._pending.append(ref)
            elif kind == "acked" and stream_ack_is_answered():
                self.acked_frames += 1
                self.acknowledged += int(frame.get("acknowledged", 0))
                self._unanswered.pop(frame.get("ref"), None)
            elif kind == "error":
                self.errors.append(frame)
                refused = self._unanswered.pop(frame.get("ref"), None)
                if refused:
                    # The relay deleted nothing: acknowledge the same messages again after a pause.
                    self._pending[:0] = refused
                    self._retry_at = time.monotonic() + ACK_RETRY_PAUSE
                    self.ack_retries += 1
            self._condition.notify_all()
