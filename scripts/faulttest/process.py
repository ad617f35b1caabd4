"""Child processes the fault tests control: the relay binary and a throwaway PostgreSQL server."""

import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

LISTENING = re.compile(r"wots-relay listening on (http://\S+)")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RelayProcess:
    """`wots-relay serve` on port 0; the address comes from its stdout line `wots-relay listening on URL`."""

    def __init__(self, binary, database, log_path, extra_args=(), port=0):
        self.binary = binary
        self.database = database
        self.log_path = log_path
        self.extra_args = list(extra_args)
        self.port = port
        self.process = None
        self.base_url = None

    def start(self, deadline_seconds=60):
        log = open(self.log_path, "ab")
        log.write(f"\n=== relay start {time.strftime('%H:%M:%S')} ===\n".encode())
        log.flush()
        command = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--database", self.database, *self.extra_args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        lines = queue.Queue()

        def read_stdout(stream):
            for raw in stream:
                lines.put(raw.decode("utf-8", "replace"))
            lines.put(None)

        threading.Thread(target=read_stdout, args=(self.process.stdout,), daemon=True).start()
        deadline = time.monotonic() + deadline_seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise RuntimeError(f"relay printed no 'listening on' line within {deadline_seconds} s "
                                   f"(log: {self.log_path})")
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                code = self.process.wait()
                raise RuntimeError(f"relay exited with status {code} before listening; log tail:\n"
                                   + tail(self.log_path))
            match = LISTENING.search(line)
            if match:
                self.base_url = match.group(1)
                return self.base_url

    @property
    def running(self):
        return self.process is not None and self.process.poll() is None

    def terminate(self, deadline_seconds):
        """SIGTERM, then wait up to `deadline_seconds`. Returns (exit status or None, seconds waited)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=deadline_seconds)
        except subprocess.TimeoutExpired:
            return None, time.monotonic() - started
        return code, time.monotonic() - started

    def kill(self):
        if self.running:
            self.process.kill()
            self.process.wait()


def tail(path, lines=15):
    try:
        with open(path, "rb") as log:
            return "".join(log.read().decode("utf-8", "replace").splitlines(keepends=True)[-lines:])
    except OSError:
        return "(no log)"


class PostgresServer:
    """Debian's PostgreSQL 15 in a temporary folder on a fixed free loopback port, owned by `postgres` when this
    runs as root (PostgreSQL refuses to run as root). Kept on one port so restarts come back where the relay looks.
    """

    def __init__(self, bin_dir="/usr/lib/postgresql/15/bin", database="wots_faults"):
        self.bin_dir = os.environ.get("WOTS_POSTGRES_BIN", bin_dir)
        self.database = database
        self.folder = None
        self.port = None

    @property
    def data(self):
        return os.path.join(self.folder, "data")

    @property
    def log(self):
        return os.path.join(self.folder, "log")

    @property
    def url(self):
        return f"postgres://postgres@127.0.0.1:{self.port}/{self.database}"

    def _as_postgres(self, command, check=True, timeout=120):
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}"
                               f"\nserver log tail:\n{tail(self.log)}")
        return result

    def ensure_installed(self):
        if os.path.exists(os.path.join(self.bin_dir, "initdb")):
            return
        if os.geteuid() != 0:
            raise RuntimeError(f"{self.bin_dir}/initdb is missing; install PostgreSQL 15 as root")
        print("installing PostgreSQL 15 (apt-get install postgresql)", flush=True)
        environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=environment)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "postgresql"],
                       check=True, env=environment)

    def create(self):
        self.ensure_installed()
        self.folder = tempfile.mkdtemp(prefix="wots-faults-pg.")
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        os.chmod(self.folder, 0o700)
        self._as_postgres([f"{self.bin_dir}/initdb", "-D", self.data, "--auth=trust", "--username=postgres",
                           "--encoding=UTF8", "--no-sync"])
        for attempt in range(5):
            self.port = free_port()
            if self._pg_ctl("start", check=False).returncode == 0:
                break
        else:
            raise RuntimeError(f"PostgreSQL did not start; log tail:\n{tail(self.log)}")
        self._as_postgres([f"{self.bin_dir}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                           self.database])

    def _options(self):
        return f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=on"

    def _pg_ctl(self, action, mode=None, check=True):
        command = [f"{self.bin_dir}/pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60"]
        if mode:
            command += ["-m", mode]
        if action in ("start", "restart"):
            command += ["-o", self._options()]
        return self._as_postgres(command + [action], check=check)

    def start(self):
        self._pg_ctl("start")

    def stop(self, mode="fast"):
        self._pg_ctl("stop", mode)

    def restart(self, mode="immediate"):
        self._pg_ctl("restart", mode)

    def psql(self, sql, database="postgres"):
        """Runs SQL as the postgres superuser over loopback; returns psql's unaligned output."""
        result = self._as_postgres([f"{self.bin_dir}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U",
                                    "postgres", "-d", database, "-At", "-F", " | ", "-v", "ON_ERROR_STOP=1",
                                    "-c", sql], timeout=30)
        return result.stdout.strip()

    def destroy(self):
        if self.folder is None:
            return
        self._pg_ctl("stop", "immediate", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None
