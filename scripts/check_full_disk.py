#!/usr/bin/env python3
"""The relay on SQLite survives a full disk: a process-level test of the real binary on a small tmpfs.

    scripts/check_full_disk.py --relay-bin .build/debug/wots-relay [--size-mib 24] [--min-free-disk 4MiB]

Mounts a SIZE MiB tmpfs (needs root; if mounting is refused it says why and exits 2), starts
`wots-relay serve --database sqlite:DIR/relay.sqlite --min-free-disk RESERVE` on it, registers a sender, a recipient
and a third user, then:

Filler (space taken from outside the relay), first, on a nearly empty filesystem:
  - a send is accepted; then a file fills the filesystem to ENOSPC: sends are answered promptly with 503
    `storage_full` or `storage_unavailable` + Retry-After, /readyz answers 503 within 5 s, /healthz 200;
  - the file is deleted: a send gets 202 within 5 s and /readyz 200 within 5 s.
Reserve (the relay's own limit):
  - the sender sends 16 KiB messages until the relay refuses one: that refusal must be 503 `storage_full` with
    Retry-After, answered within the deadline (no hang), the relay still running; further sends are refused too;
  - /readyz answers 503 within 5 s; /healthz stays 200;
  - what frees space keeps working: the recipient logs in (challenge + session), the third user deletes their
    account, the recipient acknowledges over the WebSocket and over HTTP (a sample of messages is opened);
  - once acknowledged, new mail is accepted again within 15 s and /readyz answers 200 within 5 s of that.
End: every 202'd message was delivered (0 lost); SIGTERM ends the relay with status 0 within 10 s;
`PRAGMA integrity_check` says `ok`.

`--min-free-disk none` leaves the flag out (relays that do not have it), so the rest of the checks still run.
Environment: WOTS_RELAY_BIN (instead of --relay-bin), WOTS_ACK_FORMAT=ids for relays that acknowledge by id alone.
Prints PASS/FAIL lines and "N passed, M failed"; exits 1 when a check failed, 2 when the test could not run.
"""

import argparse
import contextlib
import errno
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from faulttest.process import RelayProcess, tail  # noqa: E402
from faulttest.report import Report  # noqa: E402
from wotsclient import Identity, MessageRef, RelayClient, ack_format, open_envelope, seal  # noqa: E402
from wotsclient.acks import stream_ack_is_answered  # noqa: E402
from wotsclient.envelope import Envelope  # noqa: E402
from wotsclient.stream import Stream, message_ref  # noqa: E402

MESSAGE_BYTES = 16 * 1024
SOCKET_ACKS = 50
READY_SECONDS = 5
SIGTERM_SECONDS = 10


class CannotRun(Exception):
    pass


class FullDisk:
    def __init__(self, options):
        self.options = options
        self.report = Report()
        self.folder = tempfile.mkdtemp(prefix="wots-full-disk.")
        self.mounted = False
        self.relay = None
        self.accepted = []          # refs the relay answered 202
        self.delivered = set()      # refs the recipient received (socket or fetch)

    @property
    def database(self):
        return os.path.join(self.folder, "relay.sqlite")

    def free_bytes(self):
        stats = os.statvfs(self.folder)
        return stats.f_bavail * stats.f_frsize

    # --- setting up ------------------------------------------------------------------------------------------

    def mount(self):
        if os.geteuid() != 0:
            raise CannotRun("mounting a tmpfs needs root (run as root, or let the CI script do it)")
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.options.size_mib}m", "tmpfs",
                                 self.folder], capture_output=True, text=True)
        if result.returncode != 0:
            raise CannotRun(f"mount -t tmpfs was refused: {result.stderr.strip() or result.returncode} "
                            f"(a container needs CAP_SYS_ADMIN for this test)")
        self.mounted = True

    def start_relay(self):
        reserve = [] if self.options.min_free_disk == "none" else ["--min-free-disk", self.options.min_free_disk]
        self.relay = RelayProcess(self.options.relay_bin, f"sqlite:{self.database}",
                                  os.path.join(tempfile.gettempdir(), f"wots-full-disk-relay-{os.getpid()}.log"),
                                  ["--send-rate", "1000000", "--registrations-per-minute", "1000000",
                                   "--mailbox-capacity", "1000000", *reserve])
        try:
            url = self.relay.start(deadline_seconds=30)
        except RuntimeError as error:
            self.report.check(False, "the relay starts on the small filesystem", " ".join(str(error).split())[:400])
            return False
        self.client = RelayClient(url, timeout=self.options.deadline)
        self.url = url
        return True

    def set_up(self):
        self.mount()
        print(f"tmpfs of {self.options.size_mib} MiB at {self.folder}; reserve {self.options.min_free_disk}; "
              f"ack format {ack_format()!r}", flush=True)
        if not self.start_relay():
            return False
        self.sender, self.me, self.leaver = (Identity.generate(f"disk-{name}-{os.getpid()}")
                                             for name in ("sender", "me", "leaver"))
        for person in (self.sender, self.me, self.leaver):
            self.client.register(person)
        self.sender_session = self.client.login(self.sender)
        self.my_session = self.client.login(self.me)
        self.leaver_session = self.client.login(self.leaver)
        print(f"relay at {self.url}; {self.free_bytes() / 2**20:.1f} MiB free", flush=True)
        return True

    # --- sending ---------------------------------------------------------------------------------------------

    def send(self, number):
        """One 16 KiB message; returns the Response, or None for a hang (recorded as a failure by the caller)."""
        envelope = seal(self.sender, self.me.public, b"%08d" % number + os.urandom(MESSAGE_BYTES - 8))
        try:
            response = self.client.send(self.sender_session, envelope)
        except TimeoutError:
            return None
        if response.status == 202:
            self.accepted.append(envelope.ref)
        return response

    def fill_until_refused(self):
        """Sends until the first refusal; returns (that response or None for a hang, messages accepted)."""
        cap = self.options.size_mib * 2**20 // MESSAGE_BYTES + 200
        for number in range(cap):
            response = self.send(number)
            if response is None or response.status != 202:
                return response, number
        return "never", cap

    def wait_ready(self, wanted, seconds):
        """Polls /readyz until it answers `wanted`; returns (seconds it took or None, last answer)."""
        start, last = time.monotonic(), None
        while True:
            try:
                last = self.client.readyz(timeout=2).status
            except TimeoutError:
                last = "timeout"
            if last == wanted:
                return time.monotonic() - start, last
            if time.monotonic() - start >= seconds:
                return None, last
            time.sleep(0.2)

    def healthz(self):
        try:
            return self.client.healthz(timeout=2).status
        except TimeoutError:
            return "timeout"

    # --- the reserve -----------------------------------------------------------------------------------------

    def reserve_phase(self):
        check = self.report.check
        print("--- the relay's reserve: send 16 KiB messages until it refuses", flush=True)
        started = time.monotonic()
        refusal, count = self.fill_until_refused()
        free = self.free_bytes()
        figures = (f"{count} accepted in {time.monotonic() - started:.1f} s, then "
                   + ("no refusal at all" if refusal == "never" else "no answer within the deadline"
                      if refusal is None else f"{refusal.status} {refusal.error_code} Retry-After "
                      f"{refusal.retry_after}") + f"; {free / 2**20:.2f} MiB free; relay "
                   + ("running" if self.relay.running else f"exited with {self.relay.process.returncode}"))
        refused_right = (refusal not in (None, "never") and refusal.status == 503
                         and refusal.error_code == "storage_full" and refusal.retry_after is not None)
        check(refused_right and self.relay.running, "new mail is refused with 503 storage_full + Retry-After",
              figures)
        if not self.relay.running:
            return False
        more = [self.send(10_000_000 + number) for number in range(3)]
        check(all(answer is not None and answer.status == 503 for answer in more),
              "later sends are refused too, promptly",
              ", ".join("hang" if answer is None else f"{answer.status} {answer.error_code} "
                        f"in {answer.seconds:.2f} s" for answer in more))
        took, last = self.wait_ready(503, READY_SECONDS)
        check(took is not None, f"/readyz answers 503 within {READY_SECONDS} s",
              f"last answer {last}" if took is None else f"503 after {took:.1f} s")
        check(self.healthz() == 200, "/healthz answers 200", f"{self.healthz()}")
        self.freeing_works()
        return True

    def freeing_works(self):
        check = self.report.check
        def login():
            self.my_session = self.client.login(self.me)
            check(True, "login works while below the reserve", "challenge and session answered")

        def delete():
            answer = self.client.delete_account(self.leaver, self.leaver_session)
            check(answer.status == 204, "account deletion works while below the reserve",
                  f"POST /v1/account/delete answered {answer.status} {answer.error_code or ''}")

        self.attempt("login works while below the reserve", login)
        self.attempt("account deletion works while below the reserve", delete)
        self.attempt("acknowledging on the WebSocket works while below the reserve", self.socket_acks)
        self.attempt("acknowledging over HTTP works while below the reserve", self.http_acks)
        self.attempt("new mail is accepted again after the acknowledgements freed space",
                     lambda: self.accepts_again(15, "after the acknowledgements freed space"))

    def attempt(self, what, step):
        """Runs one step; an unexpected answer or exception is that step's FAIL, and the test goes on."""
        try:
            step()
        except Exception as error:  # noqa: BLE001 - the failure is the finding
            self.report.check(False, what, f"{type(error).__name__}: {' '.join(str(error).split())[:240]}")

    def socket_acks(self):
        """Receives the first messages on the stream and acknowledges them there."""
        check = self.report.check
        try:
            stream = Stream(self.url, self.my_session, timeout=self.options.deadline)
            refs = []
            while len(refs) < SOCKET_ACKS:
                frame = stream.next_frame(timeout=self.options.deadline)
                if frame.get("type") == "message":
                    refs.append(message_ref(frame))
            self.delivered.update(refs)
            stream.ack(refs)
            answered = None
            if stream_ack_is_answered():
                deadline = time.monotonic() + self.options.deadline
                while answered is None and time.monotonic() < deadline:
                    frame = stream.next_frame(timeout=max(0.01, deadline - time.monotonic()))
                    if frame.get("type") in ("acked", "error"):
                        answered = frame
            stream.close()
        except Exception as error:  # noqa: BLE001
            check(False, "acknowledging on the WebSocket works while below the reserve",
                  f"{type(error).__name__}: {str(error)[:200]}")
            return
        gone = self.wait_gone(refs, self.options.deadline)
        check(gone == len(refs), "acknowledging on the WebSocket works while below the reserve",
              f"{gone} of {len(refs)} acknowledged messages left the mailbox"
              + (f"; reply {answered}" if answered is not None else ""))

    def wait_gone(self, refs, seconds):
        """Polls the head of the mailbox (queued mail is offered in sequence order, so the refs acknowledged first
        sit there) until the refs are gone; returns how many are."""
        deadline = time.monotonic() + seconds
        while True:
            left = {self.ref_of(item) for item in self.client.fetch(self.my_session, limit=2 * len(refs))}
            gone = sum(ref not in left for ref in refs)
            if gone == len(refs) or time.monotonic() >= deadline:
                return gone
            time.sleep(0.2)

    @staticmethod
    def ref_of(item):
        return MessageRef(item["envelope"]["sender"], item["envelope"]["id"].lower())

    def http_acks(self):
        """Fetches the rest, opens a sample, acknowledges everything over HTTP."""
        check = self.report.check
        messages = self.client.fetch_all(self.my_session)
        refs = [self.ref_of(item) for item in messages]
        self.delivered.update(refs)
        opened = [open_envelope(self.me, Envelope.from_json(item["envelope"]), self.sender.public)
                  for item in messages[::50]]
        acknowledged = sum(self.client.ack(self.my_session, refs[index:index + 1000])
                           for index in range(0, len(refs), 1000))
        left = len(self.client.fetch_all(self.my_session))
        check(acknowledged == len(refs) and left == 0, "acknowledging over HTTP works while below the reserve",
              f"{acknowledged} of {len(refs)} acknowledged, {left} left; {len(opened)} sampled messages opened, "
              f"{sum(len(text) == MESSAGE_BYTES for text in opened)} with the right length; "
              f"{self.free_bytes() / 2**20:.2f} MiB free now")

    def accepts_again(self, seconds, when):
        check = self.report.check
        start = time.monotonic()
        answers = []
        while True:
            answer = self.send(20_000_000 + len(answers))
            answers.append("hang" if answer is None else f"{answer.status}")
            if answer is not None and answer.status == 202:
                break
            if time.monotonic() - start >= seconds:
                break
            time.sleep(0.5)
        took = time.monotonic() - start
        ok = answers[-1] == "202"
        check(ok, f"new mail is accepted again within {seconds} s {when}",
              f"202 after {took:.1f} s ({len(answers)} tries)" if ok
              else f"still refused after {took:.1f} s: {', '.join(answers[-5:])}")
        if ok:
            ready, last = self.wait_ready(200, READY_SECONDS)
            check(ready is not None, f"/readyz answers 200 within {READY_SECONDS} s once mail is accepted",
                  f"last answer {last}" if ready is None else f"200 after {ready:.1f} s")

    # --- filled from outside ---------------------------------------------------------------------------------

    def filler_phase(self):
        check = self.report.check
        print("--- the filesystem filled from outside the relay", flush=True)
        baseline = self.send(40_000_000)
        check(baseline is not None and baseline.status == 202, "a send is accepted before the filler",
              "hang" if baseline is None else f"{baseline.status} {baseline.error_code or ''}".strip())
        filler = os.path.join(self.folder, "filler")
        written = fill(filler)
        answers = []
        for number in range(5):
            started = time.monotonic()
            answer = self.send(30_000_000 + number)
            answers.append((answer, time.monotonic() - started))
        described = ", ".join("hang" if answer is None else f"{answer.status} {answer.error_code} in {took:.2f} s"
                              for answer, took in answers)
        check(all(answer is not None and answer.status == 503 and answer.error_code in
                  ("storage_full", "storage_unavailable") and answer.retry_after for answer, _ in answers),
              "with the disk full, sends get 503 storage_full/storage_unavailable + Retry-After promptly",
              f"filler {written / 2**20:.1f} MiB, {self.free_bytes()} bytes free; {described}")
        took, last = self.wait_ready(503, READY_SECONDS)
        check(took is not None, f"/readyz answers 503 within {READY_SECONDS} s",
              f"last answer {last}" if took is None else f"503 after {took:.1f} s")
        check(self.healthz() == 200, "/healthz answers 200", f"{self.healthz()}")
        os.remove(filler)
        self.accepts_again(5, "after the filler is deleted")

    # --- the end ---------------------------------------------------------------------------------------------

    def finish(self):
        check = self.report.check

        def count_lost():
            messages = self.client.fetch_all(self.my_session)
            self.delivered.update(self.ref_of(item) for item in messages)
            lost = [ref for ref in self.accepted if ref not in self.delivered]
            check(not lost, "0 lost: every 202'd message was delivered",
                  f"{len(self.accepted)} accepted, {len(lost)} lost")

        self.attempt("0 lost: every 202'd message was delivered", count_lost)
        code, seconds = self.relay.terminate(SIGTERM_SECONDS)
        check(code == 0, f"SIGTERM ends the relay with status 0 within {SIGTERM_SECONDS} s",
              "did not exit" if code is None else f"status {code} after {seconds:.1f} s")
        self.relay.kill()
        try:
            with contextlib.closing(sqlite3.connect(self.database, timeout=5)) as database:
                verdict = [row[0] for row in database.execute("PRAGMA integrity_check")]
        except sqlite3.Error as error:
            verdict = [f"{type(error).__name__}: {error}"]
        check(verdict == ["ok"], "PRAGMA integrity_check", "; ".join(verdict)[:300])

    def tear_down(self):
        if self.relay is not None:
            self.relay.kill()
            if self.report.failed:
                print(f"relay log kept: {self.relay.log_path}")
            else:
                os.remove(self.relay.log_path)
        if self.mounted:
            unmounted = subprocess.run(["umount", self.folder], capture_output=True, text=True)
            if unmounted.returncode != 0:
                print(f"could not unmount {self.folder}: {unmounted.stderr.strip()}", file=sys.stderr)
                return
        shutil.rmtree(self.folder, ignore_errors=True)


def fill(path):
    """Writes zeros until the filesystem says ENOSPC; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as filler:
        for size in (1 << 20, 1 << 12, 1):
            block = b"\0" * size
            while True:
                try:
                    written += filler.write(block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
        os.fsync(filler.fileno())
    return written


def parse_options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--relay-bin", default=os.environ.get("WOTS_RELAY_BIN"),
                        help="the wots-relay binary (default $WOTS_RELAY_BIN)")
    parser.add_argument("--size-mib", type=int, default=24, help="tmpfs size in MiB (default 24)")
    parser.add_argument("--min-free-disk", default="4MiB", help="the relay's reserve, or 'none' to omit the flag")
    parser.add_argument("--deadline", type=float, default=10, help="seconds before a request counts as a hang")
    options = parser.parse_args()
    if not options.relay_bin or not os.access(options.relay_bin, os.X_OK):
        parser.error(f"--relay-bin {options.relay_bin!r} is not an executable (or set WOTS_RELAY_BIN)")
    return options


def main():
    options = parse_options()
    test = FullDisk(options)
    started = time.monotonic()
    try:
        if test.set_up():
            test.attempt("the filesystem filled from outside", test.filler_phase)
            if test.reserve_phase():
                test.finish()
    except CannotRun as reason:
        print(f"check_full_disk: cannot run: {reason}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - an unexpected answer ends the test as a failure, with the reason
        test.report.check(False, "the test ran to the end", f"{type(error).__name__}: {str(error)[:300]}")
        if test.relay is not None:
            print(tail(test.relay.log_path), file=sys.stderr)
    finally:
        test.tear_down()
    print(f"full-disk test took {time.monotonic() - started:.0f} s")
    return test.report.close()


if __name__ == "__main__":
    sys.exit(main())
