#!/usr/bin/env bash
# A two-minute tour for `make demo`: starts a relay on a throwaway SQLite file, registers alice and bob, and lets
# them exchange end-to-end encrypted messages through the real `wots` CLI. Everything lives in a temporary folder
# that is removed at the end.
#
#   WOTS_DEMO_SCRATCH   SwiftPM scratch path (default .build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${WOTS_DEMO_SCRATCH:-$ROOT/.build}
cd "$ROOT"
swift build --scratch-path "$SCRATCH" --product wots-relay >&2
swift build --scratch-path "$SCRATCH" --product wots >&2
BIN=$(swift build --scratch-path "$SCRATCH" --show-bin-path)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-demo.XXXXXX")
RELAY_PID=""
cleanup() {
    [[ -n "$RELAY_PID" ]] && kill -TERM "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export WOTS_RELAY="http://127.0.0.1:$PORT"
# Cheap scrypt so the demo does not wait on key derivation; real accounts use the default cost.

"$BIN/wots-relay" serve --host 127.0.0.1 --port "$PORT" --database "sqlite:$WORK/relay.sqlite" >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!
for _ in $(seq 1 100); do curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 && break; sleep 0.2; done

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
alice() { say "wots $* # as alice"; WOTS_HOME="$WORK/alice" WOTS_SECRET="alice's demo secret" "$BIN/wots" "$@"; }
bob() { say "wots $* # as bob"; WOTS_HOME="$WORK/bob" WOTS_SECRET="bob's demo secret" "$BIN/wots" "$@"; }

mkdir -m 700 "$WORK/alice" "$WORK/bob"
alice register --nick alice --avatar-preset rabbit
bob register --nick bob --avatar-preset dog
alice directory list
alice directory show bob
alice send --to bob "Hello Bob, only you can read this."
bob inbox
bob send --to alice "Hi Alice! Got it."
alice inbox
alice verify bob
bob verify alice
say "# the relay only ever stored ciphertext:"
if grep -ralF "only you can read this" "$WORK/relay.sqlite"* >/dev/null 2>&1; then
    echo "plaintext found in the relay's database!"; exit 1
else
    echo "no plaintext in $(ls "$WORK"/relay.sqlite* | wc -l) database file(s)"
fi
