#!/usr/bin/env bash
# End-to-end attachments through the real binaries: `wots send --file` encrypts and uploads, `wots inbox` downloads,
# checks, decrypts and saves under a free name; a chunk changed in the relay's database is attachment_corrupt and
# nothing is saved; the blob is gone once fetched; `wots chat`'s /send; send --file --wait-delivered; an image
# avatar saved by its new contact. SQLite first, then a throwaway PostgreSQL (scripts/with-postgres.sh).
# Prints "N passed, 0 failed".
#
# Environment: WOTS_E2E_SCRATCH (default .build), WOTS_E2E_SKIP_BUILD=1, WOTS_E2E_KEEP=1, WOTS_E2E_DATABASE,
# WOTS_E2E_POSTGRES=1 (as scripts/e2e.sh).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${WOTS_E2E_SCRATCH:-$ROOT/.build}
cd "$ROOT"

source "$ROOT/scripts/e2e-binaries.sh"
e2e_binaries "$ROOT/scripts/e2e-attachments.sh" "attachments"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-e2e-attach.XXXXXX")
RELAY_PID=""
cleanup() {
    if [[ -n "$RELAY_PID" ]]; then kill -TERM "$RELAY_PID" 2>/dev/null; wait "$RELAY_PID" 2>/dev/null; fi
    if [[ "${WOTS_E2E_KEEP:-0}" == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

PASSED=0
fail() {
    echo "FAIL: $CURRENT: $*" >&2
    cat "$WORK/out" "$WORK/err" 2>/dev/null | tail -20 >&2
    tail -20 "$WORK/relay.log" >&2 2>/dev/null
    echo "$PASSED passed, 1 failed" >&2
    exit 1
}
step() { CURRENT="$1"; }
ok() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $CURRENT" >&2; }
as() {
    local user=$1; shift
    WOTS_HOME="$WORK/homes/$user" WOTS_SECRET="secret of $user, long enough" "$WOTS_BIN" "$@" >"$WORK/out" 2>"$WORK/err"
}
expect_success() { "$@" || fail "exit status $? from: ${*:2}"; }
out_has() { grep -qF -- "$1" "$WORK/out" || fail "stdout lacks \"$1\""; }
err_has() { grep -qiF -- "$1" "$WORK/err" || fail "stderr lacks \"$1\""; }
json() { python3 -c "import json,sys; d=json.load(open('$WORK/out')); print($1)"; }
# sql STATEMENT: runs on the relay's database, as someone with access to its files would.
sql() {
    if [[ "$DATABASE" == sqlite:* ]]; then
        python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchall(); c.commit(); print(r[0][0] if r else "")' \
            "${DATABASE#sqlite:}" "$1"
    else
        psql "$DATABASE" -v ON_ERROR_STOP=1 -qtA -c "$1"
    fi
}

unset WOTS_SECRET WOTS_HOME XDG_DATA_HOME XDG_DOWNLOAD_DIR
mkdir -p "$WORK/homes" && chmod 700 "$WORK/homes"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export WOTS_RELAY="http://127.0.0.1:$PORT"
DATABASE=${WOTS_E2E_DATABASE:-sqlite:$WORK/relay.sqlite}
step "relay starts on ${DATABASE%%:*}"
"$RELAY_BIN" serve --host 127.0.0.1 --port "$PORT" --database "$DATABASE" --registrations-per-minute 1000000 \
    --admin-address 127.0.0.1:0 >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!
for _ in $(seq 1 100); do
    curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 && break
    kill -0 "$RELAY_PID" 2>/dev/null || fail "relay exited"
    sleep 0.2
done
curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 || fail "relay not healthy"
ok

step "alice and bob register"
expect_success as alice register --nick alice
expect_success as bob register --nick bob
ok

step "alice sends a 20 MiB file with a caption; progress goes to stderr as plain lines"
head -c $((20 << 20)) /dev/urandom >"$WORK/big.bin"
expect_success as alice send --to bob --file "$WORK/big.bin" --caption "the whole archive"
out_has "sent big.bin to bob"
err_has "uploading 20.0 of 20.0 MiB (100%)"
ok

step "bob's inbox saves it byte for byte and says where"
expect_success as bob inbox --json --download-dir "$WORK/downloads"
[[ "$(json 'd[0]["savedTo"]')" == "$WORK/downloads/big.bin" ]] || fail "savedTo is $(json 'd[0]["savedTo"]')"
[[ "$(json 'd[0]["text"]')" == "the whole archive" ]] || fail "caption lost"
[[ "$(json 'd[0]["attachment"]["size"]')" == $((20 << 20)) ]] || fail "size wrong"
cmp -s "$WORK/big.bin" "$WORK/downloads/big.bin" || fail "the saved file differs"
ok

step "the blob is gone from the relay once bob fetched it"
[[ "$(sql 'SELECT count(*) FROM blobs')" == 0 ]] || fail "blobs remain"
[[ "$(sql 'SELECT count(*) FROM blob_chunks')" == 0 ]] || fail "chunks remain"
ok

step "a second file of the same name is saved beside the first, never over it"
echo "first" >"$WORK/note.txt"
expect_success as alice send --to bob --file "$WORK/note.txt"
expect_success as bob inbox --download-dir "$WORK/downloads"
echo "second" >"$WORK/note.txt"
expect_success as alice send --to bob --file "$WORK/note.txt"
expect_success as bob inbox --download-dir "$WORK/downloads"
out_has "📎 note.txt"
[[ "$(cat "$WORK/downloads/note.txt")" == first && "$(cat "$WORK/downloads/note (1).txt")" == second ]] ||
    fail "names: $(ls "$WORK/downloads")"
ok

step "wots chat: /help lists /send; /send PATH sends the file with its ✓ mark, and bob's inbox saves it"
echo "sent from the chat" >"$WORK/chat-note.txt"
printf '/help\n/send %s\n' "$WORK/chat-note.txt" | as alice chat --with bob || fail "chat exit status $?"
out_has "/send PATH"
out_has "✓ sent"
expect_success as bob inbox --download-dir "$WORK/downloads"
out_has "saved to $WORK/downloads/chat-note.txt"
cmp -s "$WORK/chat-note.txt" "$WORK/downloads/chat-note.txt" || fail "the saved file differs"
ok

step "an image avatar reaches a new contact encrypted: saved under bob's WOTS_HOME/avatars, shown by directory show"
python3 -c 'import os, sys; sys.stdout.buffer.write(b"\x89PNG\r\n\x1a\n" + os.urandom(3000))' >"$WORK/carol.png"
expect_success as carol register --nick carol --avatar "$WORK/carol.png"
expect_success as bob directory show carol
out_has "avatar:      not received yet"
expect_success as carol send --to bob "hello from carol"
expect_success as bob inbox
err_has "carol's avatar: image, saved at $WORK/homes/bob/avatars/carol.png"
cmp -s "$WORK/carol.png" "$WORK/homes/bob/avatars/carol.png" || fail "the saved avatar differs"
[[ "$(stat -c %a "$WORK/homes/bob/avatars/carol.png")" == 600 ]] || fail "the avatar file is not mode 0600"
expect_success as bob directory show carol --json
[[ "$(json 'd["avatar"]["image"]')" == "$WORK/homes/bob/avatars/carol.png" ]] || fail "JSON avatar is $(json 'd["avatar"]')"
ok

step "send --file --wait-delivered exits 4 while bob's client has not confirmed it"
echo "wait for me" >"$WORK/wait.txt"
as alice send --to bob --file "$WORK/wait.txt" --wait-delivered --timeout 1s
status=$?
[[ $status == 4 ]] || fail "exit status $status, not 4"
err_has "not confirmed delivered"
expect_success as bob inbox --download-dir "$WORK/downloads"
out_has "saved to $WORK/downloads/wait.txt"
ok

step "a chunk changed in the relay's database is attachment_corrupt and nothing is saved"
head -c 300000 /dev/urandom >"$WORK/photo.jpg"
expect_success as alice send --to bob --file "$WORK/photo.jpg"
if [[ "$DATABASE" == sqlite:* ]]; then
    sql "UPDATE blob_chunks SET data = randomblob(length(data))" >/dev/null
else
    sql "UPDATE blob_chunks SET data = set_byte(data, 100, get_byte(data, 100) # 1)" >/dev/null
fi
expect_success as bob inbox --download-dir "$WORK/downloads"
out_has "attachment_corrupt"
[[ ! -e "$WORK/downloads/photo.jpg" ]] || fail "a corrupt attachment was saved"
[[ -z "$(ls -A "$WORK/downloads" | grep -v -e '^big.bin$' -e '^note.txt$' -e '^note (1).txt$' \
    -e '^chat-note.txt$' -e '^wait.txt$')" ]] ||
    fail "left behind: $(ls -A "$WORK/downloads")"
ok

echo "$PASSED passed, 0 failed" >&2
