#!/usr/bin/env python3
"""The .deb on this machine, as root: `python3 scripts/check_deb.py PACKAGE.deb [--hide DIR]...`.

Checks, in order: `dpkg-deb -c` lists the binaries, the relay's migration bundles, man pages, completions, the unit
and the env file (a conffile, mode 0640); Depends names libssl3 and libsqlite3-0; `systemd-analyze verify` accepts the
unit inside the extracted package and `systemd-analyze security --offline` prints its exposure figure; `dpkg -i`
makes the wots user and gives /etc/wots/relay.env to root:wots 0640; `systemd-analyze verify` accepts the installed unit; the relay started from the installed files with
the unit's own ExecStart, User=, WorkingDirectory=, UMask= and StateDirectory= (systemd is not PID 1 here: setpriv
drops to wots, no new privileges and no capabilities, prctl(PR_SET_MDWE) stands in for MemoryDenyWriteExecute) sends
READY=1 to an abstract $NOTIFY_SOCKET, answers /readyz 200 on both addresses and creates its database 0600 in the
state directory; SIGTERM brings STOPPING=1 and exit 0; `dpkg --purge` leaves no file, directory or user behind.

Each --hide DIR is covered by an empty tmpfs for the relay (a private mount namespace), so the binaries cannot fall
back on the build tree's resource bundles and must find their migrations where the package put them.
Prints "N passed"; exits 1 naming the first failing check.
"""
import ctypes
import grp
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

PASSED = 0
WORK = tempfile.mkdtemp(prefix="wots-deb.")
PACKAGE_NAME = "wots"


def fail(check, detail):
    print(f"FAIL: {check}: {detail}", file=sys.stderr)
    print(f"{PASSED} passed, 1 failed", file=sys.stderr)
    sys.exit(1)


def check(name, condition, detail=""):
    global PASSED
    if not condition:
        fail(name, detail)
    PASSED += 1
    print(f"ok: {name}")


def run(*command, **options):
    return subprocess.run(command, capture_output=True, text=True, **options)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ensure_tools():
    missing = [tool for tool in ("systemd-analyze", "setpriv", "unshare", "adduser") if not shutil.which(tool)]
    if missing:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "systemd", "util-linux",
                        "adduser"], check=True)


def check_contents(deb):
    listing = run("dpkg-deb", "-c", deb).stdout
    paths = {line.split()[5].lstrip(".") for line in listing.splitlines()}
    expected = [
        "/usr/lib/wots/wots", "/usr/lib/wots/wots-relay", "/usr/bin/wots", "/usr/bin/wots-relay",
        "/usr/lib/wots/wots_WotsStorageSQLite.resources/Migrations/0001_initial.sql",
        "/usr/lib/wots/wots_WotsStoragePostgres.resources/Migrations/0001_initial.sql",
        "/usr/share/man/man1/wots-relay.1.gz", "/usr/share/man/man1/wots-relay.serve.1.gz",
        "/usr/share/man/man1/wots-relay-serve.1.gz", "/usr/share/man/man1/wots.1.gz",
        "/usr/share/bash-completion/completions/wots-relay", "/usr/share/zsh/vendor-completions/_wots-relay",
        "/usr/share/fish/vendor_completions.d/wots-relay.fish", "/usr/share/bash-completion/completions/wots",
        "/lib/systemd/system/wots-relay.service", "/etc/wots/relay.env", "/usr/share/doc/wots/OPERATIONS.md",
        "/usr/share/wots/web/index.html",
    ]
    missing = [path for path in expected if path not in paths]
    check("dpkg-deb -c lists binaries, migrations, man pages, completions, unit, env file, web client",
          not missing, missing)
    env_line = next(line for line in listing.splitlines() if line.endswith("./etc/wots/relay.env"))
    check("the env file is packaged 0640", env_line.startswith("-rw-r-----"), env_line)
    info = run("dpkg-deb", "-f", deb, "Depends", "Version").stdout
    check("Depends names libssl3, libsqlite3-0 and adduser",
          all(name in info for name in ("libssl3", "libsqlite3-0", "adduser")), info)
    print(info.strip())
    return sorted(paths)


def check_unit(deb):
    tree = os.path.join(WORK, "tree")
    subprocess.run(["dpkg-deb", "-R", deb, tree], check=True)
    conffiles = open(os.path.join(tree, "DEBIAN", "conffiles")).read().split()
    check("DEBIAN/conffiles holds /etc/wots/relay.env", conffiles == ["/etc/wots/relay.env"], conffiles)
    security = run("systemd-analyze", "security", "--offline=yes", f"--root={tree}", "--no-pager",
                   os.path.join(tree, "lib/systemd/system/wots-relay.service"))
    figure = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\S+)", security.stdout)
    check("systemd-analyze security --offline gives an exposure figure", figure is not None,
          security.stdout[-800:] + security.stderr)
    print(f"exposure: {figure.group(1)} {figure.group(2)}")
    for line in security.stdout.splitlines():
        if line.startswith("✗"):
            print("  exposed: " + line[1:].strip()[:110])


def unit_settings():
    settings = {}
    for line in open("/lib/systemd/system/wots-relay.service"):
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, value = line.strip().split("=", 1)
            settings[key] = value
    return settings


def set_memory_deny_write_execute():
    # PR_SET_MDWE (65) with PR_MDWE_REFUSE_EXEC_GAIN (1), Linux 6.3+: what MemoryDenyWriteExecute=yes enforces.
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(65, 1, 0, 0, 0) != 0:
        os.write(2, b"prctl(PR_SET_MDWE) unavailable on this kernel; MemoryDenyWriteExecute not simulated\n")


def start_relay(hidden):
    unit = unit_settings()
    state = "/var/lib/" + unit["StateDirectory"]
    os.makedirs(state, mode=0o700, exist_ok=True)
    user = pwd.getpwnam(unit["User"])
    os.chown(state, user.pw_uid, user.pw_gid)
    notify_name = f"wots-check-deb-{os.getpid()}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind("\0" + notify_name)
    listener.settimeout(60)
    port, admin = free_port(), free_port()
    # What a drop-in's Environment= would add; the relay reads /etc/wots/relay.env itself (ExecStart's --config).
    environment = {"PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": "@" + notify_name, "WOTS_PORT": str(port),
                   "WOTS_ADMIN_ADDRESS": f"127.0.0.1:{admin}", "LANG": "C.UTF-8"}
    mounts = " && ".join(f"mount -t tmpfs none {shlex.quote(os.path.abspath(d))}" for d in hidden) or "true"
    drop = (f"setpriv --reuid={unit['User']} --regid={unit['Group']} --init-groups --no-new-privs "
            f"--inh-caps=-all --bounding-set=-all")
    umask = unit["UMask"]
    command = f"{mounts} && umask {umask} && cd {shlex.quote(unit['WorkingDirectory'])} && exec {drop} {unit['ExecStart']}"
    log = open(os.path.join(WORK, "relay.log"), "w")
    relay = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", command], env=environment,
                             stdout=log, stderr=subprocess.STDOUT, preexec_fn=set_memory_deny_write_execute)
    return relay, listener, port, admin, state


def relay_log():
    return open(os.path.join(WORK, "relay.log")).read()[-2000:]


def receive(listener, expected, relay):
    deadline = time.monotonic() + 60
    seen = []
    while time.monotonic() < deadline:
        try:
            message = listener.recv(4096).decode()
        except socket.timeout:
            break
        seen.append(message)
        if expected in message.split("\n"):
            return seen
    fail(f"{expected} on NOTIFY_SOCKET", f"saw {seen}; exit {relay.poll()}; log:\n{relay_log()}")


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except Exception as error:  # noqa: BLE001 - any failure is the answer
        return f"{error}"


def main():
    arguments = sys.argv[1:]
    deb = arguments[0]
    hidden = [arguments[i + 1] for i, argument in enumerate(arguments) if argument == "--hide"]
    if os.geteuid() != 0:
        fail("running as root", "dpkg -i and setpriv need root")
    ensure_tools()
    if run("dpkg", "-s", PACKAGE_NAME).returncode == 0:
        subprocess.run(["dpkg", "--purge", PACKAGE_NAME], check=True, capture_output=True)
    paths = check_contents(deb)
    check_unit(deb)

    install = run("dpkg", "-i", deb)
    check("dpkg -i installs the package", install.returncode == 0, install.stdout + install.stderr)
    user = pwd.getpwnam("wots") if "wots" in [entry.pw_name for entry in pwd.getpwall()] else None
    check("postinst made the wots system user", user is not None and user.pw_uid < 1000, user)
    env_stat = os.stat("/etc/wots/relay.env")
    check("/etc/wots/relay.env is root:wots 0640",
          env_stat.st_uid == 0 and grp.getgrgid(env_stat.st_gid).gr_name == "wots"
          and stat.S_IMODE(env_stat.st_mode) == 0o640, oct(env_stat.st_mode))

    # After the install, so ExecStart's binary and the units it orders after exist; --man=no as CI has no man-db.
    verify = run("systemd-analyze", "verify", "--man=no", "/lib/systemd/system/wots-relay.service")
    check("systemd-analyze verify accepts the installed unit", verify.returncode == 0 and not verify.stderr.strip(),
          verify.stdout + verify.stderr)

    mdwe = ctypes.CDLL(None, use_errno=True).prctl(66, 0, 0, 0, 0) >= 0  # PR_GET_MDWE answers from Linux 6.3
    print("MemoryDenyWriteExecute: " + ("simulated with prctl(PR_SET_MDWE), inherited across exec" if mdwe
                                         else "not simulated, this kernel has no PR_SET_MDWE"))
    relay, listener, port, admin, state = start_relay(hidden)
    try:
        seen = receive(listener, "READY=1", relay)
        check("READY=1 arrives on the abstract NOTIFY_SOCKET", True, seen)
        check("/readyz is 200 on the public address", status(f"http://127.0.0.1:{port}/readyz") == 200, relay_log())
        check("the installed relay serves the browser client from /usr/share/wots/web at /",
              status(f"http://127.0.0.1:{port}/") == 200, relay_log())
        check("/readyz is 200 on the administration address",
              status(f"http://127.0.0.1:{admin}/readyz") == 200, relay_log())
        database = os.path.join(state, "relay.sqlite")
        database_stat = os.stat(database)
        check("the database is the wots user's, 0600 (UMask=0077), in the state directory",
              database_stat.st_uid == user.pw_uid and stat.S_IMODE(database_stat.st_mode) == 0o600,
              oct(database_stat.st_mode))
        admin_stats = run("setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
                          "/usr/bin/wots-relay", "admin", "stats", "--config", "/etc/wots/relay.env", "--json",
                          cwd=state, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        try:
            accounts = json.loads(admin_stats.stdout).get("accounts")
        except ValueError:
            accounts = None
        check("wots-relay admin stats --config /etc/wots/relay.env reads the running relay's database as wots",
              admin_stats.returncode == 0 and accounts == 0, admin_stats.stdout + admin_stats.stderr)
        relay.send_signal(signal.SIGTERM)
        seen = receive(listener, "STOPPING=1", relay)
        check("STOPPING=1 arrives on SIGTERM", True, seen)
        code = relay.wait(timeout=30)
        check("the relay exits 0 after SIGTERM", code == 0, f"exit {code}; log:\n{relay_log()}")
    finally:
        if relay.poll() is None:
            relay.kill()
            relay.wait()
        listener.close()

    purge = run("dpkg", "--purge", PACKAGE_NAME)
    check("dpkg --purge removes the package", purge.returncode == 0, purge.stdout + purge.stderr)
    # Shared folders (/usr/share/man/man1, …) stay; every file and link the package brought must be gone.
    left = [path for path in paths if not path.endswith("/") and os.path.lexists(path)]
    left += [path for path in ("/var/lib/wots", "/etc/wots", "/usr/lib/wots", "/usr/share/doc/wots") if os.path.lexists(path)]
    check("nothing the package installed or made is left", not left, left)
    names = [entry.pw_name for entry in pwd.getpwall()] + [entry.gr_name for entry in grp.getgrall()]
    check("the wots user and group are gone", "wots" not in names)
    print(f"{PASSED} passed")


if __name__ == "__main__":
    main()
