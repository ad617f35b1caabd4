#!/usr/bin/env python3
"""1,100 half-open connections against the real wots-relay binary (SECURITY.md, "Connection limits and timeouts").

1. Started with a soft descriptor limit of 1,024 (the usual default), the relay raises it to the hard limit: while
   1,100 sockets each hold half a request, a real client still gets answers, and the header deadline closes all the
   half-open sockets.
2. Started with soft and hard limits of 1,024 and a cap it cannot honour, the relay runs out of descriptors in
   accept: it pauses accepting instead of spinning (its CPU time stays low), logs that at most once per interval,
   and serves again once the attackers leave.

Usage: check_connection_flood.py PATH/TO/wots-relay. Standard library only.
"""
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import time

ATTACKERS = 1100
HEADER_TIMEOUT_SECONDS = 3
HALF_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: relay\r\nX-Slow: "


def start_relay(binary, folder, ulimit, extra, header_timeout=HEADER_TIMEOUT_SECONDS):
    log = open(os.path.join(folder, "relay.log"), "w")
    command = (
        f"ulimit {ulimit} 1024 && exec {binary} serve --port 0 --database sqlite:{folder}/relay.sqlite "
        f"--header-timeout {header_timeout}s --log-level info {extra}"
    )
    process = subprocess.Popen(["bash", "-c", command], stdout=subprocess.PIPE, stderr=log, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        match = re.search(r"listening on http://[0-9.]+:(\d+)", line)
        if match:
            return process, int(match.group(1))
        if not line:
            break
    process.kill()
    sys.exit(f"FAIL: the relay did not start: {open(log.name).read()}")


def health(port, timeout=2.0):
    """One real client request on a fresh connection; the status line, or the error."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n")
            answer = b""
            while b"\r\n" not in answer:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                answer += chunk
            return answer.split(b"\r\n")[0].decode(errors="replace")
    except OSError as error:
        return f"error: {error}"


def open_attackers(port, count):
    attackers = []
    for _ in range(count):
        connection = socket.socket()
        connection.setblocking(True)
        connection.settimeout(5)
        try:
            connection.connect(("127.0.0.1", port))
            connection.sendall(HALF_REQUEST)
        except OSError:
            connection.close()
            continue
        connection.setblocking(False)
        attackers.append(connection)
    return attackers


def wait_until_closed(attackers, seconds):
    """How many attackers the relay closed within `seconds` (epoll: select() stops at descriptor 1,024)."""
    selector = selectors.DefaultSelector()
    for connection in attackers:
        selector.register(connection, selectors.EVENT_READ)
    closed = 0
    deadline = time.monotonic() + seconds
    while closed < len(attackers) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.2):
            try:
                if key.fileobj.recv(4096) != b"":
                    continue
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                pass
            selector.unregister(key.fileobj)
            closed += 1
    selector.close()
    return closed


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def close_all(attackers):
    for connection in attackers:
        connection.close()


def raised_limit_serves_through_the_flood(binary):
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_relay(binary, folder, "-Sn", "")
        try:
            attackers = open_attackers(port, ATTACKERS)
            assert len(attackers) == ATTACKERS, f"only {len(attackers)} of {ATTACKERS} attackers connected"
            answers = [health(port) for _ in range(20)]
            bad = [answer for answer in answers if "200" not in answer]
            assert not bad, f"a real client was not served during the flood: {bad[:3]}"
            closed = wait_until_closed(attackers, HEADER_TIMEOUT_SECONDS + 10)
            assert closed == ATTACKERS, f"the header deadline closed {closed} of {ATTACKERS}"
            close_all(attackers)
            log = open(os.path.join(folder, "relay.log")).read()
            limit = int(re.search(r"RLIMIT_NOFILE=(\d+)", log).group(1))
            print(f"ok: soft limit 1024 raised to {limit}; 20/20 real requests answered under {ATTACKERS} "
                  f"half-open connections; all {closed} closed by the {HEADER_TIMEOUT_SECONDS}s header deadline")
        finally:
            stop(process)


def stop(process):
    """SIGTERM, then SIGKILL if the relay has not ended 30 s later (shutdown is checked elsewhere, not here)."""
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        print("note: the relay took more than 30 s to end after SIGTERM; killed")
        process.kill()
        process.wait()


def wait_for_log(folder, text, seconds):
    """Whether the relay's log shows `text` within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in open(os.path.join(folder, "relay.log")).read():
            return True
        time.sleep(0.05)
    return False


def exhausted_descriptors_pause_accept(binary):
    with tempfile.TemporaryDirectory() as folder:
        # A header deadline long enough that the attackers still hold every descriptor while CPU is measured.
        process, port = start_relay(binary, folder, "-n", "--max-connections 100000", header_timeout=60)
        try:
            attackers = open_attackers(port, ATTACKERS)
            assert wait_for_log(folder, "accept failed: out of descriptors", 30), "accept never ran out of descriptors"
            before = cpu_seconds(process.pid)
            time.sleep(2.0)  # measuring CPU use over a fixed interval, not waiting for an outcome
            used = cpu_seconds(process.pid) - before
            # A relay retrying accept at once keeps one core busy: 2.00 s of CPU in 2 s was measured before the
            # listening socket left the event loop's interest set during the back-off; 0.01 s after.
            assert used < 0.5, f"the relay used {used:.2f}s of CPU in 2s while out of descriptors"
            close_all(attackers)
            deadline = time.monotonic() + 20
            answer = health(port)
            while "200" not in answer and time.monotonic() < deadline:
                answer = health(port)
            assert "200" in answer, f"the relay did not serve again after the flood: {answer}"
            log = open(os.path.join(folder, "relay.log")).read()
            warnings = log.count("accept failed: out of descriptors")
            assert 1 <= warnings <= 3, f"{warnings} exhaustion warnings (want one per 10 s)"
            print(f"ok: out of descriptors at 1024: {used:.2f}s CPU in 2s while accept failed, {warnings} warning "
                  "line(s), served again once the attackers left")
        finally:
            stop(process)


def main():
    binary = sys.argv[1]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < ATTACKERS + 200:
        sys.exit(f"FAIL: the hard descriptor limit {hard} is below what this check needs ({ATTACKERS + 200})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192) if hard != resource.RLIM_INFINITY else 8192, hard))
    raised_limit_serves_through_the_flood(binary)
    exhausted_descriptors_pause_accept(binary)


if __name__ == "__main__":
    main()
