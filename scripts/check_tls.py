#!/usr/bin/env python3
"""TLS end to end with the real binaries: `python3 scripts/check_tls.py BIN_DIR`.

Makes a throwaway CA and two server certificates for 127.0.0.1/localhost (same CA, different serials) with `openssl`,
then checks: start errors for a missing, unparsable or mismatched certificate or key (one line, exit 1); register,
send and listen over https:// and wss:// with --ca-file and WOTS_CA_FILE; a client without the CA refused with one
line naming the certificate problem and --ca-file; SIGHUP swaps the served certificate while an open TLS connection
and a listening WebSocket stay open and still work; a bad file on SIGHUP keeps the old certificate; /metrics is 404 on
the public address and served on the administration address, /healthz and /readyz on both.
Prints "N passed"; exits 1 naming the first failing check.
"""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else ".build/debug"
WOTS, RELAY = os.path.join(BIN, "wots"), os.path.join(BIN, "wots-relay")
WORK = tempfile.mkdtemp(prefix="wots-tls.")
PASSED = 0
PROCESSES = []


def fail(check, detail):
    print(f"FAIL: {check}: {detail}", file=sys.stderr)
    log = os.path.join(WORK, "relay.log")
    if os.path.exists(log):
        print("--- relay log (tail) ---\n" + "".join(open(log).readlines()[-15:]), file=sys.stderr)
    print(f"{PASSED} passed, 1 failed", file=sys.stderr)
    sys.exit(1)


def ok(check):
    global PASSED
    PASSED += 1
    print(f"ok {PASSED} - {check}", file=sys.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=WORK)


def make_certificates():
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=Wots test CA", "-keyout", "ca.key", "-out", "ca.pem")
    with open(os.path.join(WORK, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
    for name, serial in (("one", "0x1001"), ("two", "0x2002")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1",
                "-keyout", f"{name}.key", "-out", f"{name}.csr")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", serial,
                "-days", "2", "-extfile", "san.ext", "-out", f"{name}.pem")
    with open(os.path.join(WORK, "garbage.pem"), "w") as f:
        f.write("not a certificate\n")


def path(name):
    return os.path.join(WORK, name)


def start_failure(check, *arguments, expect_in):
    result = subprocess.run([RELAY, "serve", "--port", "0", "--admin-address", "none",
                             "--database", f"sqlite:{path('never.sqlite')}", *arguments],
                            capture_output=True, text=True, timeout=60)
    lines = result.stderr.strip().splitlines()
    if result.returncode != 1 or len(lines) != 1 or expect_in not in lines[0]:
        fail(check, f"status {result.returncode}, stderr {result.stderr!r}")
    ok(check)


def wots(user, *arguments, ca=True, env_ca=False):
    environment = dict(os.environ, WOTS_HOME=path(f"home-{user}"), WOTS_SECRET=f"secret of {user}, long enough",
                       WOTS_RELAY=RELAY_URL)
    environment.pop("WOTS_CA_FILE", None)
    flags = []
    if env_ca:
        environment["WOTS_CA_FILE"] = path("ca.pem")
    elif ca:
        flags = ["--ca-file", path("ca.pem")]
    return subprocess.run([WOTS, *flags, *arguments], capture_output=True, text=True, env=environment, timeout=60)


def https_context():
    context = ssl.create_default_context(cafile=path("ca.pem"))
    return context


def served_serial():
    """The serial of the certificate a new handshake gets, as openssl prints it (upper-case hex)."""
    with socket.create_connection(("127.0.0.1", PORT), timeout=5) as raw:
        with https_context().wrap_socket(raw, server_hostname="localhost") as tls:
            return serial_of(tls)


def serial_of(tls):
    der = tls.getpeercert(binary_form=True)
    text = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-serial"], input=der,
                          capture_output=True, check=True).stdout.decode()
    return text.strip().split("=")[1]


def get(url, context=None):
    try:
        with urllib.request.urlopen(url, timeout=5, context=context) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    fail(what, f"not within {seconds} s")


def keep_alive_request(tls):
    tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
        chunk = tls.recv(4096)
        if not chunk:
            return None
        data += chunk
    return data.split(b" ", 2)[1].decode()


def main():
    global RELAY_URL, PORT
    make_certificates()
    start_failure("a missing certificate file stops the start with one line", "--tls-cert", path("absent.pem"),
                  "--tls-key", path("one.key"), expect_in="absent.pem does not exist")
    start_failure("a file that is not PEM stops the start with one line", "--tls-cert", path("garbage.pem"),
                  "--tls-key", path("one.key"), expect_in="is not a PEM certificate")
    start_failure("a key of another certificate stops the start with one line", "--tls-cert", path("one.pem"),
                  "--tls-key", path("two.key"), expect_in="does not belong to the certificate")
    usage = subprocess.run([RELAY, "serve", "--tls-cert", path("one.pem")], capture_output=True, text=True)
    if usage.returncode != 64 or "--tls-key" not in usage.stderr:
        fail("--tls-cert alone is a usage error", f"status {usage.returncode}: {usage.stderr!r}")
    ok("--tls-cert alone is a usage error")

    shutil.copy(path("one.pem"), path("served.pem"))
    shutil.copy(path("one.key"), path("served.key"))
    PORT, admin = free_port(), free_port()
    RELAY_URL = f"https://localhost:{PORT}"
    log = open(path("relay.log"), "w")
    relay = subprocess.Popen([RELAY, "serve", "--port", str(PORT), "--admin-address", f"127.0.0.1:{admin}",
                              "--database", f"sqlite:{path('relay.sqlite')}", "--registrations-per-minute", "100000",
                              "--tls-cert", path("served.pem"), "--tls-key", path("served.key")],
                             stdout=log, stderr=subprocess.STDOUT)
    PROCESSES.append(relay)
    wait_until(lambda: b"listening on https://" in open(path("relay.log"), "rb").read(), 30, "relay starts")
    ok("the relay listens on https://")

    for user, check in (("alice", "--ca-file"), ("bob", "WOTS_CA_FILE")):
        result = wots(user, "register", "--nick", user, ca=check == "--ca-file", env_ca=check == "WOTS_CA_FILE")
        if result.returncode != 0:
            fail(f"register over https:// with {check}", result.stderr)
        ok(f"register over https:// with {check}")

    by_address = wots("alice", "--relay", f"https://127.0.0.1:{PORT}", "directory", "list")
    if by_address.returncode != 0 or "bob" not in by_address.stdout:
        fail("https:// to the IP address verifies the certificate's IP entry", by_address.stderr)
    ok("https:// to the IP address verifies the certificate's IP entry")
    by_address = wots("alice", "--relay", f"https://127.0.0.1:{PORT}", "listen")
    if by_address.returncode != 1 or "host name" not in by_address.stderr:
        fail("wss:// to an IP address is refused at once, naming the fix", by_address.stderr)
    ok("wss:// to an IP address is refused at once, naming the fix")

    refused = wots("mallory", "register", "--nick", "mallory", ca=False)
    lines = refused.stderr.strip().splitlines()
    if refused.returncode != 1 or len(lines) != 1 or "not trusted" not in lines[0] or "--ca-file" not in lines[0]:
        fail("a client without the CA is refused with one line naming the fix", refused.stderr)
    ok("a client without the CA is refused with one line naming the fix")

    status, body = get(f"{RELAY_URL}/metrics", https_context())
    if status != 404:
        fail("/metrics is not on the public address", f"status {status}")
    for route in ("/healthz", "/readyz"):
        if get(f"{RELAY_URL}{route}", https_context())[0] != 200:
            fail(f"{route} on the public address", "not 200")
        if get(f"http://127.0.0.1:{admin}{route}")[0] != 200:
            fail(f"{route} on the administration address", "not 200")
    status, body = get(f"http://127.0.0.1:{admin}/metrics")
    if status != 200 or "wots_registrations_total 2" not in body:
        fail("/metrics on the administration address", f"status {status}: {body[:200]!r}")
    ok("/metrics only on the administration address; /healthz and /readyz on both")

    listen_out, listen_err = open(path("listen.out"), "w"), open(path("listen.err"), "w")
    listener = subprocess.Popen(
        [WOTS, "--ca-file", path("ca.pem"), "listen", "--json"], stdout=listen_out, stderr=listen_err,
        env=dict(os.environ, WOTS_HOME=path("home-bob"), WOTS_SECRET="secret of bob, long enough",
                 WOTS_RELAY=RELAY_URL))
    PROCESSES.append(listener)

    def sockets_open():
        return "wots_websocket_connections 1" in get(f"http://127.0.0.1:{admin}/metrics")[1]

    wait_until(sockets_open, 20, "bob's listener connects over wss://")
    sent = wots("alice", "send", "--to", "bob", "before the new certificate")
    if sent.returncode != 0:
        fail("send over https://", sent.stderr)
    wait_until(lambda: "before the new certificate" in open(path("listen.out")).read(), 10, "listen over wss://")
    ok("send over https:// and listen over wss://")

    held = https_context().wrap_socket(socket.create_connection(("127.0.0.1", PORT), timeout=5),
                                       server_hostname="localhost")
    if keep_alive_request(held) != "200" or serial_of(held) != "1001":
        fail("a connection opened before the reload", "no 200 or not serial 1001")
    if served_serial() != "1001":
        fail("the first certificate is served", served_serial())
    shutil.copy(path("two.pem"), path("served.pem"))
    shutil.copy(path("two.key"), path("served.key"))
    relay.send_signal(signal.SIGHUP)
    wait_until(lambda: served_serial() == "2002", 10, "SIGHUP: new handshakes get serial 2002")
    if keep_alive_request(held) != "200" or serial_of(held) != "1001":
        fail("SIGHUP keeps open connections", "the held connection no longer answers")
    sent = wots("alice", "send", "--to", "bob", "after the new certificate")
    if sent.returncode != 0:
        fail("send after the reload", sent.stderr)
    wait_until(lambda: "after the new certificate" in open(path("listen.out")).read(), 10,
               "the listening WebSocket still receives after the reload")
    if "disconnected" in open(path("listen.err")).read() or not sockets_open() or listener.poll() is not None:
        fail("the listening WebSocket stayed open", open(path("listen.err")).read())
    ok("SIGHUP swaps the certificate (serial 1001 → 2002); open connections and the WebSocket stay and work")

    shutil.copy(path("garbage.pem"), path("served.pem"))
    relay.send_signal(signal.SIGHUP)
    wait_until(lambda: "not reloaded" in open(path("relay.log")).read(), 10, "a failed reload is logged")
    if served_serial() != "2002" or relay.poll() is not None:
        fail("a failed reload keeps the previous certificate", "serial changed or relay exited")
    ok("a bad file on SIGHUP is logged and the previous certificate stays")
    held.close()
    print(f"{PASSED} passed", file=sys.stderr)


try:
    main()
finally:
    for process in reversed(PROCESSES):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    shutil.rmtree(WORK, ignore_errors=True)
