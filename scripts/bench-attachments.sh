#!/usr/bin/env bash
# `make bench` (bench-attachments): attachment throughput over loopback through the real binaries. A relay on a
# temporary SQLite file; `wots send --file` (encrypt + upload) and `wots inbox` (download + verify + decrypt + save) of a
# BENCH_ATTACHMENT_MIB file (default 64), each timed whole (including one scrypt unlock and the login), printed in MiB/s
# beside `openssl speed -evp aes-256-gcm -bytes 65536 -seconds 3` measured in the same run.
#
# Knobs: BENCH_ATTACHMENT_MIB (64), BENCH_SCRATCH (default .build-release, built with -c release; a debug scratch such
# as .build is used as it is, with BENCH_CONFIGURATION=debug).
set -euo pipefail
cd "$(dirname "$0")/.."

MIB=${BENCH_ATTACHMENT_MIB:-64}
CONFIGURATION=${BENCH_CONFIGURATION:-release}
SCRATCH=${BENCH_SCRATCH:-.build-release}
swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --product wots-relay >&2
swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --product wots >&2
BIN=$(swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --show-bin-path)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-bench-attach.XXXXXX")
RELAY_PID=
cleanup() { [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export WOTS_RELAY="http://127.0.0.1:$PORT"
"$BIN/wots-relay" serve --port "$PORT" --database "sqlite:$WORK/relay.sqlite" --admin-address none \
    --log-level warning >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!
for _ in $(seq 1 100); do curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

as() {
    local user=$1; shift
    WOTS_HOME="$WORK/$user" WOTS_SECRET="secret of $user, long enough" "$BIN/wots" "$@"
}
as alice register --nick alice >/dev/null
as bob register --nick bob >/dev/null
head -c $((MIB << 20)) /dev/urandom >"$WORK/file.bin"

now() { date +%s.%N; }
start=$(now)
as alice send --to bob --file "$WORK/file.bin" >/dev/null 2>&1
middle=$(now)
as bob inbox --download-dir "$WORK/downloads" >/dev/null 2>&1
end=$(now)
cmp -s "$WORK/file.bin" "$WORK/downloads/file.bin" || { echo "bench-attachments: the file did not round-trip" >&2; exit 1; }

# openssl speed prints "aes-256-gcm  K16 K64 … K65536k" in thousands of bytes per second; the last column is 64 KiB.
OPENSSL=$(openssl speed -evp aes-256-gcm -bytes 65536 -seconds 3 2>/dev/null | awk '/^AES-256-GCM|^aes-256-gcm/ {print $NF}')
OPENSSL=${OPENSSL%k}
python3 - "$MIB" "$start" "$middle" "$end" "$OPENSSL" "$CONFIGURATION" <<'PY'
import sys
mib, start, middle, end, openssl, configuration = sys.argv[1:]
mib = float(mib); start, middle, end = float(start), float(middle), float(end)
aes = float(openssl) * 1000 / 1048576 if openssl else float("nan")
up, down, total = mib / (middle - start), mib / (end - middle), mib / (end - start)
print(f"attachments, {mib:.0f} MiB over loopback, {configuration} build, SQLite relay (times include unlock and login):")
print(f"  encrypt + upload (wots send --file)            {up:8.1f} MiB/s  ({middle - start:.2f} s)")
print(f"  download + verify + decrypt (wots inbox)       {down:8.1f} MiB/s  ({end - middle:.2f} s)")
print(f"  whole round trip                               {total:8.1f} MiB/s  ({end - start:.2f} s)")
print(f"  openssl speed -evp aes-256-gcm, 64 KiB blocks  {aes:8.1f} MiB/s  (one core, same run)")
print(f"  round trip / raw AES-GCM                       {total / aes:8.3f}")
PY
