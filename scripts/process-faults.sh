#!/usr/bin/env bash
# Process-level fault tests of a built relay: PostgreSQL faults under load (scripts/check_faults.py) and SQLite on a
# full disk (scripts/check_full_disk.py). Builds nothing.
#
#   scripts/process-faults.sh BIN_PATH            # BIN_PATH holds wots-relay, e.g. "$(swift build --show-bin-path)"
#
# Environment: WOTS_FAULT_TRIES (default 3), WOTS_ACK_FORMAT (pairs | ids), WOTS_POSTGRES_BIN.
# Installs the pinned Python requirements when missing. Runs both checks even when the first fails; exits non-zero
# when either failed. Needs root (PostgreSQL runs as the postgres user; the full-disk test mounts a tmpfs).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -ne 1 ] || [ ! -x "$1/wots-relay" ]; then
    echo "usage: $0 BIN_PATH (a folder holding an executable wots-relay)" >&2
    exit 64
fi
RELAY_BIN=$(cd "$1" && pwd)/wots-relay

if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as metadata, re, sys
for line in open("scripts/requirements-test.txt"):
    line = line.split("#")[0].strip()
    if line:
        name, version = re.split(r"==", line)
        if metadata.version(name) != version:
            sys.exit(1)
PY
then
    echo "installing scripts/requirements-test.txt" >&2
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet -r scripts/requirements-test.txt || exit 1
fi

printf '\n==> %s\n' "the Python client the fault tests use (scripts/test_wotsclient.py, offline)"
python3 scripts/test_wotsclient.py || exit 1

status=0
printf '\n==> %s\n' "PostgreSQL faults under load (scripts/check_faults.py)"
python3 scripts/check_faults.py --relay-bin "$RELAY_BIN" --tries "${WOTS_FAULT_TRIES:-3}" || status=1
printf '\n==> %s\n' "SQLite on a full disk (scripts/check_full_disk.py)"
python3 scripts/check_full_disk.py --relay-bin "$RELAY_BIN" || status=1
exit "$status"
