"""Envelopes sealed ahead of the load in worker processes, so the senders' pace is not bounded by RSA signing under
one interpreter lock (signing costs about 1 ms; 250 msg/s would take a core's quarter on an idle machine, and these
machines are shared).

Each worker owns some of the senders and keeps each of their queues topped up to `depth` envelopes.
"""

import multiprocessing
import queue
import time

from cryptography.hazmat.primitives import serialization

from wotsclient import Identity, seal


def _private_der(key):
    return key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _identity_parts(identity):
    return identity.token_bytes, _private_der(identity.signing_key), _private_der(identity.encryption_key), \
        identity.nickname


def _work(worker, parts, recipient, queues, depth, stop):
    senders = [Identity(token, serialization.load_der_private_key(signing, None),
                        serialization.load_der_private_key(encryption, None), nickname)
               for token, signing, encryption, nickname in parts]
    counter = 0
    while not stop.is_set():
        topped_up = True
        for sender, envelopes in zip(senders, queues):
            if envelopes.qsize() < depth:
                topped_up = False
                for _ in range(20):
                    counter += 1
                    envelopes.put(seal(sender, recipient, b"fault test %d/%d" % (worker, counter)))
        if topped_up:
            stop.wait(0.05)


class Sealer:
    """`envelope(index)` returns the next sealed envelope of sender `index` (waiting up to `timeout` seconds)."""

    def __init__(self, senders, recipient, workers=2, depth=400):
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._queues = [context.Queue() for _ in senders]
        self._processes = []
        for worker in range(workers):
            mine = list(range(worker, len(senders), workers))
            process = context.Process(
                target=_work, daemon=True, name=f"sealer-{worker}",
                args=(worker, [_identity_parts(senders[index]) for index in mine], recipient,
                      [self._queues[index] for index in mine], depth, self._stop))
            process.start()
            self._processes.append(process)

    def envelope(self, index, timeout=5.0):
        try:
            return self._queues[index].get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no sealed envelope for sender {index} within {timeout:g} s") from None

    def wait_filled(self, depth, deadline):
        """Waits until every sender has `depth` envelopes ready (or the deadline passes)."""
        while time.monotonic() < deadline:
            if all(envelopes.qsize() >= depth for envelopes in self._queues):
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        self._stop.set()
        for process in self._processes:
            process.join(2)
            if process.is_alive():
                process.kill()
