"""A paced sending load: N senders, each one thread with its own keep-alive connection, each request recorded."""

import itertools
import threading
import time
from dataclasses import dataclass

from wotsclient import seal


@dataclass
class SendRecord:
    sender: int
    ref: object          # wotsclient.MessageRef
    started: float       # time.monotonic() when the request was sent
    answered: float      # when the answer (or the deadline, or the failure) came
    status: int | None   # HTTP status; None when there was no answer
    outcome: str         # "answered", "hang" (no answer within the deadline) or "error: …" (transport failure)
    retry_after: str | None = None
    code: str | None = None

    @property
    def seconds(self):
        return self.answered - self.started


class Recorder:
    """Every send, in order of completion; waiters can block until a record matching a condition arrives."""

    def __init__(self):
        self.records = []
        self._condition = threading.Condition()

    def add(self, record):
        with self._condition:
            self.records.append(record)
            self._condition.notify_all()

    def snapshot(self):
        with self._condition:
            return list(self.records)

    def wait_for(self, predicate, deadline):
        """The first record (in completion order) satisfying `predicate`, or None at `deadline` (monotonic)."""
        seen = 0
        with self._condition:
            while True:
                for record in self.records[seen:]:
                    if predicate(record):
                        return record
                seen = len(self.records)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._condition.wait(remaining)


class Load:
    """`len(senders)` accounts sending sealed envelopes to `recipient` at `rate` messages per second in total, each
    with `in_flight` threads (and keep-alive connections) so that one slow answer does not stall its account: the
    relay commits in groups, and ten strictly sequential senders cannot offer 250 msg/s once an answer takes 40 ms.

    senders: list of (Identity, session). A sender that falls more than a second behind its schedule (a slow or
    hung request) skips the backlog instead of bursting, so the offered load stays at `rate` or below.
    envelopes: a function of the sender's index giving its next sealed envelope (a faulttest.sealer.Sealer's
    `envelope`); by default each is sealed in the sending thread.
    """

    def __init__(self, client, senders, recipient, rate, recorder, deadline, envelopes=None, in_flight=6):
        self.client = client
        self.senders = senders
        self.recipient = recipient
        self.threads = len(senders) * in_flight
        self.interval = self.threads / rate
        self.recorder = recorder
        self.deadline = deadline
        self._stop = threading.Event()
        self.starved = 0
        self._threads = []
        self._counter = itertools.count()
        self.envelopes = envelopes or self._seal
        self.starved = 0       # sends skipped because no sealed envelope was ready

    def _seal(self, index):
        return seal(self.senders[index][0], self.recipient, b"fault test %d" % next(self._counter))

    def start(self):
        # A fresh event per run: a thread of an earlier run that is still stuck in a request keeps seeing its own
        # (set) event and cannot join this run.
        self._stop = threading.Event()
        self.starved = 0
        self._threads = [threading.Thread(target=self._run, args=(index, self._stop), daemon=True,
                                          name=f"sender-{index}")
                         for index in range(self.threads)]
        for thread in self._threads:
            thread.start()

    def stop(self):
        """Stops sending and waits for requests in flight (each ends by its deadline). Returns how many threads
        were still stuck after that (should be 0)."""
        self._stop.set()
        end = time.monotonic() + self.deadline + 5
        for thread in self._threads:
            thread.join(max(0.0, end - time.monotonic()))
        return sum(thread.is_alive() for thread in self._threads)

    def _run(self, thread, stop):
        index = thread % len(self.senders)
        session = self.senders[index][1]
        client = self.client
        # Spread the threads over one interval so requests do not arrive in lockstep.
        next_send = time.monotonic() + self.interval * thread / self.threads
        try:
            while not stop.is_set():
                now = time.monotonic()
                if now < next_send:
                    if stop.wait(next_send - now):
                        break
                elif now - next_send > 1.0:
                    next_send = now
                next_send += self.interval
                try:
                    envelope = self.envelopes(index)
                except TimeoutError:
                    self.starved += 1
                    continue
                self.recorder.add(self.send_one(client, index, session, envelope))
        finally:
            client.close()

    def send_one(self, client, index, session, envelope):
        started = time.monotonic()
        try:
            response = client.send(session, envelope, timeout=self.deadline)
        except TimeoutError:
            return SendRecord(index, envelope.ref, started, time.monotonic(), None, "hang")
        except OSError as error:
            return SendRecord(index, envelope.ref, started, time.monotonic(), None,
                              f"error: {type(error).__name__}")
        return SendRecord(index, envelope.ref, started, response.answered, response.status, "answered",
                          response.retry_after, response.error_code)
