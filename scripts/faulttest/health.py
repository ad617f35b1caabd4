"""Polls `/readyz` and `/healthz` in their own threads (every 200 ms, 2 s deadline each) and keeps every answer."""

import threading
import time

from wotsclient import RelayClient

POLL_EVERY = 0.2
POLL_DEADLINE = 2.0


class HealthPoller:
    def __init__(self, relay_url):
        self.relay_url = relay_url
        self.samples = {"/readyz": [], "/healthz": []}   # path -> [(time, status | "timeout" | "error")]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(path,), daemon=True, name=f"poll{path}")
                         for path in self.samples]

    def start(self):
        for thread in self._threads:
            thread.start()

    def stop(self):
        self._stop.set()
        for thread in self._threads:
            thread.join(POLL_DEADLINE + 1)

    def retarget(self, relay_url):
        self.relay_url = relay_url

    def between(self, path, start, end):
        with self._lock:
            return [(at, status) for at, status in self.samples[path] if start <= at <= end]

    def _run(self, path):
        client, url = None, None
        while not self._stop.is_set():
            if url != self.relay_url:
                url = self.relay_url
                client = RelayClient(url, timeout=POLL_DEADLINE)
            started = time.monotonic()
            try:
                status = client.request("GET", path).status
            except TimeoutError:
                status = "timeout"
            except OSError:
                status = "error"
            with self._lock:
                self.samples[path].append((started, status))
            self._stop.wait(max(0.0, POLL_EVERY - (time.monotonic() - started)))
