#!/usr/bin/env bash
# End-to-end test: builds `wots` and `wots-relay`, starts the relay on a throwaway SQLite file and a free port,
# and drives real users through the CLI with temporary homes. Prints "N passed, 0 failed"; exits non-zero naming
# the failing step.
#
# Environment:
#   WOTS_E2E_SCRATCH      SwiftPM scratch path (default .build)
#   WOTS_E2E_SKIP_BUILD=1 use binaries already built in the scratch path
#   WOTS_E2E_USERS        how many users the directory-paging scenario registers (default 250)
#   WOTS_E2E_KEEP=1       keep the work folder (relay database, log, homes) for inspection
#   WOTS_E2E_DATABASE     relay database URL instead of a temporary SQLite file (e.g. postgres://…)
#   WOTS_E2E_POSTGRES=1   after the SQLite run, run every scenario again on a throwaway PostgreSQL
#                         (scripts/with-postgres.sh)
# The CLI derives keys at the real scrypt cost (N = 2^15): no client or relay accepts less.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${WOTS_E2E_SCRATCH:-$ROOT/.build}
USERS=${WOTS_E2E_USERS:-250}
cd "$ROOT"

source "$ROOT/scripts/e2e-binaries.sh"
e2e_binaries "$ROOT/scripts/e2e.sh" "the same scenarios"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-e2e.XXXXXX")
RELAY_PID=""
LISTEN_PID=""
cleanup() {
    [[ -n "$LISTEN_PID" ]] && kill "$LISTEN_PID" 2>/dev/null
    if [[ -n "$RELAY_PID" ]]; then
        kill -TERM "$RELAY_PID" 2>/dev/null
        wait "$RELAY_PID" 2>/dev/null
    fi
    if [[ "${WOTS_E2E_KEEP:-0}" == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

PASSED=0
fail() {
    echo "FAIL: $CURRENT: $*" >&2
    echo "--- last output ---" >&2
    cat "$WORK/out" "$WORK/err" 2>/dev/null | tail -20 >&2
    echo "--- relay log (tail) ---" >&2
    tail -20 "$WORK/relay.log" >&2 2>/dev/null
    echo "$PASSED passed, 1 failed" >&2
    exit 1
}
step() { CURRENT="$1"; }
ok() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $CURRENT" >&2; }

# wots as USER: its own home and secret; stdout in $WORK/out, stderr in $WORK/err.
as() {
    local user=$1; shift
    WOTS_HOME="$WORK/homes/$user" WOTS_SECRET="secret of $user, long enough" "$WOTS_BIN" "$@" >"$WORK/out" 2>"$WORK/err"
}
expect_success() { "$@" || fail "exit status $? from: ${*:2}"; }
expect_failure() { if "$@"; then fail "succeeded but should have failed: ${*:2}"; fi; }
out_has() { grep -qF -- "$1" "$WORK/out" || fail "stdout lacks \"$1\""; }
err_has() { grep -qiF -- "$1" "$WORK/err" || fail "stderr lacks \"$1\""; }
json() { python3 -c "import json,sys; d=json.load(open('$WORK/out')); print($1)"; }

unset WOTS_SECRET WOTS_HOME XDG_DATA_HOME
mkdir -p "$WORK/homes"
chmod 700 "$WORK/homes"

# --- relay ---------------------------------------------------------------------------------------------------------
# Every relay here (main, impostor, short retention) gets its operator's address on a free port: they would
# otherwise all fight over 127.0.0.1:9090, and the second one started would exit.
export WOTS_ADMIN_ADDRESS=127.0.0.1:0
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export WOTS_RELAY="http://127.0.0.1:$PORT"
DATABASE=${WOTS_E2E_DATABASE:-sqlite:$WORK/relay.sqlite}
step "relay starts on ${DATABASE%%:*}"
"$RELAY_BIN" serve --host 127.0.0.1 --port "$PORT" --database "$DATABASE" \
    --registrations-per-minute 1000000 ${WOTS_E2E_RELAY_ARGS:-} \
    >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!
for _ in $(seq 1 100); do
    curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 && break
    kill -0 "$RELAY_PID" 2>/dev/null || fail "relay exited: $(tail -5 "$WORK/relay.log")"
    sleep 0.2
done
curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 || fail "relay not healthy on port $PORT"
ok

# --- registration ----------------------------------------------------------------------------------------------------
step "alice registers and gets a token and fingerprint"
expect_success as alice register --nick alice --avatar-preset tiger
out_has "registered alice"; out_has "token:"; out_has "fingerprint:"
ok

step "bob registers"
expect_success as bob register --nick Bob
out_has "registered bob"
ok

step "whoami shows nickname, token, fingerprint and relay"
expect_success as alice whoami --json
[[ $(json 'd["nickname"]') == alice ]] || fail "nickname"
[[ $(json 'len(d["token"])') == 26 ]] || fail "token length"
[[ $(json 'd["relay"]') == "$WOTS_RELAY" ]] || fail "relay"
ALICE_FP=$(json 'd["fingerprint"]')
ok

step "a taken nickname is refused in any case and leaves no local state"
expect_failure as mallory register --nick ALICE
err_has "alice"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
[[ ! -e "$WORK/homes/mallory/profile.json" && ! -e "$WORK/homes/mallory/private-record.json" ]] || fail "half-state left"
ok

step "invalid nicknames are refused with the rule"
expect_failure as mallory register --nick al
err_has "too short"
expect_failure as mallory register --nick 'bad name!'
err_has "allowed"
ok

step "nicknames must start with a letter or digit, and odd characters are named readably"
for nick in ... _xy --nick=-dash; do
    if [[ $nick == --nick=* ]]; then expect_failure as mallory register "$nick"; else expect_failure as mallory register --nick "$nick"; fi
    err_has "must start with a letter or digit"
done
expect_failure as mallory register --nick -dash
err_has -- "--nick=-dash"
expect_failure as mallory register --nick "smile😀"
err_has '"😀" (U+1F600)'
if grep -qF '\u{' "$WORK/err"; then fail "a character shown as a Swift escape"; fi
[[ ! -e "$WORK/homes/mallory/profile.json" ]] || fail "a refused nickname left an account"
ok

step "a usage error exits 64 and a failure exits 1, each with one line on stderr"
as alice send --to bob --no-such-flag "x"; status=$?
[[ $status -eq 64 ]] || fail "usage error exited $status"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "usage error printed $(wc -l <"$WORK/err") lines"
err_has "wots: "; err_has "wots send --help"
as alice directory show nobody-here; status=$?
[[ $status -eq 1 ]] || fail "failure exited $status"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "failure printed $(wc -l <"$WORK/err") lines"
grep -q '^wots: ' "$WORK/err" || fail "failure line does not start with wots:"
as alice --help >/dev/null; status=$?
[[ $status -eq 0 ]] || fail "--help exited $status"
out_has "64"; out_has "130"
ok

step "registering twice in one home is refused"
expect_failure as alice register --nick alice2
err_has "already"
ok

# --- directory -------------------------------------------------------------------------------------------------------
step "directory list shows both users"
expect_success as alice directory list
out_has "alice"; out_has "bob"
ok

step "directory show prints the fingerprint"
expect_success as bob directory show alice --json
[[ $(json 'd["fingerprint"]') == "$ALICE_FP" ]] || fail "fingerprint differs from whoami"
ok

step "directory show of an unknown nickname fails with one line"
expect_failure as alice directory show nobody-here
err_has "nobody-here"
ok

step "https:// against this plain-HTTP relay fails within seconds and says it speaks http"
START_NS=$(date +%s%N)
expect_failure as alice --relay "https://127.0.0.1:$PORT" directory list
ELAPSED_MS=$(( ($(date +%s%N) - START_NS) / 1000000 ))
(( ELAPSED_MS < 5000 )) || fail "took $ELAPSED_MS ms"
err_has "this relay speaks http, not https"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
ok

# --- messages --------------------------------------------------------------------------------------------------------
MARKER="marker-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
step "alice sends bob a message (pinning his key on first use)"
expect_success as alice send --to bob "hello bob $MARKER"
out_has "sent to bob"
err_has "pinned bob"
ok

step "bob sends alice a message from stdin"
echo "hi alice $MARKER-reply" | WOTS_HOME="$WORK/homes/bob" WOTS_SECRET="secret of bob, long enough" \
    "$WOTS_BIN" send --to alice >"$WORK/out" 2>"$WORK/err" || fail "send from stdin"
ok

step "bob's inbox shows alice's message, verified"
expect_success as bob inbox
out_has "alice: hello bob $MARKER"
ok

step "a second inbox shows nothing new"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 0 ]] || fail "second inbox not empty"
ok

step "alice's inbox --json shows bob's reply as valid"
expect_success as alice inbox --json
[[ $(json 'len(d)') == 1 ]] || fail "expected one message"
[[ $(json 'd[0]["from"]') == bob && $(json 'd[0]["valid"]') == True ]] || fail "not a valid message from bob"
[[ $(json 'd[0]["text"]') == "hi alice $MARKER-reply" ]] || fail "text differs"
ok

step "inbox --keep leaves messages in the mailbox"
expect_success as alice send --to bob "kept $MARKER"
expect_success as bob inbox --keep --json
[[ $(json 'len(d)') == 1 ]] || fail "expected one message"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 1 ]] || fail "the kept message is gone"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 0 ]] || fail "acknowledged message came back"
ok

step "a group: create, send --group, and bob's inbox shows [NAME]"
expect_success as alice group create "crew $MARKER" --members bob --json
GROUP_ID=$(json 'd["id"]')
[[ $(json 'len(d["members"])') == 2 && $(json 'd["admin"]') == True ]] || fail "group not created as admin"
expect_success as alice send --group "crew $MARKER" "hello crew $MARKER"
out_has "sent to crew $MARKER"
expect_success as bob inbox
out_has "[crew $MARKER] alice created crew $MARKER with you"
out_has "[crew $MARKER] alice: hello crew $MARKER"
expect_success as bob group list --json
[[ $(json 'd[0]["id"]') == "$GROUP_ID" ]] || fail "bob's group list lacks the group"
expect_success as alice inbox --json
[[ $(json 'd[0]["kind"]') == group_change ]] || fail "alice's own create did not come back"
ok

step "a retried send with the same id is stored once"
ID=$(python3 -c 'import uuid; print(uuid.uuid4())')
expect_success as alice send --to bob --id "$ID" "once $MARKER"
expect_success as alice send --to bob --id "$ID" "once $MARKER"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 1 ]] || fail "duplicate delivered"
ok

step "a whitespace-only message is refused, from the arguments and from stdin"
expect_failure as alice send --to bob "   "
err_has "only whitespace"
printf ' \n\t\n' | WOTS_HOME="$WORK/homes/alice" WOTS_SECRET="secret of alice, long enough" \
    "$WOTS_BIN" send --to bob >"$WORK/out" 2>"$WORK/err" && fail "a whitespace message from stdin was sent"
err_has "only whitespace"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 0 ]] || fail "a whitespace message arrived"
ok

step "message ids are lowercase in text and in JSON"
expect_success as alice send --to bob --json "id check $MARKER"
SENT_ID=$(json 'd["id"]')
[[ $SENT_ID == "$(echo "$SENT_ID" | tr A-Z a-z)" && ${#SENT_ID} -eq 36 ]] || fail "send --json id $SENT_ID"
expect_success as bob inbox --json
[[ $(json 'd[0]["id"]') == "$SENT_ID" ]] || fail "inbox --json id differs from send --json id"
expect_success as alice send --to bob "id check 2"
grep -qE '\(id [0-9a-f-]{36}\)$' "$WORK/out" || fail "send text id not lowercase: $(cat "$WORK/out")"
expect_success as bob inbox --json
ok

step "sending to an unknown recipient is refused"
expect_failure as alice send --to nobody-here "x"
err_has "nobody-here"
ok

step "the relay never sees the plaintext (database files and log)"
sleep 0.5
if grep -ralF "$MARKER" "$WORK"/relay.* >/dev/null 2>&1; then fail "marker found in relay files"; fi
if [[ "$DATABASE" == postgres* ]] && command -v pg_dump >/dev/null; then
    pg_dump "$DATABASE" >"$WORK/dump.sql" 2>/dev/null || fail "pg_dump"
    if grep -qF "$MARKER" "$WORK/dump.sql"; then fail "marker found in the PostgreSQL database"; fi
    rm -f "$WORK/dump.sql"
fi
ok

# --- live stream -----------------------------------------------------------------------------------------------------
step "listen prints a live message as one JSON line and acknowledges it"
WOTS_HOME="$WORK/homes/bob" WOTS_SECRET="secret of bob, long enough" "$WOTS_BIN" listen --json \
    >"$WORK/listen.out" 2>"$WORK/listen.err" &
LISTEN_PID=$!
sleep 1.5
expect_success as alice send --to bob "live $MARKER"
for _ in $(seq 1 50); do grep -qF "live $MARKER" "$WORK/listen.out" && break; sleep 0.2; done
grep -qF "live $MARKER" "$WORK/listen.out" || { cat "$WORK/listen.err" >&2; fail "listener printed nothing"; }
python3 -c "import json; [json.loads(l) for l in open('$WORK/listen.out')]" || fail "not JSON lines"
sleep 0.5
kill "$LISTEN_PID" 2>/dev/null; wait "$LISTEN_PID" 2>/dev/null; LISTEN_PID=""
expect_success as bob inbox --json
[[ $(json 'len(d)') == 0 ]] || fail "listened message not acknowledged"
ok

step "chat sends each line typed on stdin"
printf 'chat one %s\nchat two\n' "$MARKER" | as alice chat --with bob || fail "chat"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 2 && $(json 'd[1]["text"]') == "chat two" ]] || fail "chat lines not delivered in order"
ok

# --- unlock once -----------------------------------------------------------------------------------------------------
# Without WOTS_SECRET, without --secret-file and without a terminal (setsid: no controlling terminal, stdin /dev/null).
bare() {
    local user=$1; shift
    WOTS_HOME="$WORK/homes/$user" setsid -w "$WOTS_BIN" "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
}
step "after wots unlock, commands need no secret and no terminal, rotate included; after wots lock, one clear line"
expect_success as dora register --nick dora
printf '%s\n' "secret of dora, long enough" >"$WORK/dora.secret"
expect_failure bare dora send --to bob "locked"
err_has "no secret for dora"; err_has "wots unlock"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
if bare dora unlock --for 10m --secret-file "$WORK/dora.secret"; then
    out_has "unlocked dora for 10m"
    expect_success bare dora send --to bob "unlocked $MARKER"
    expect_success as bob inbox --json
    [[ $(json 'len(d)') == 1 && $(json 'd[0]["text"]') == "unlocked $MARKER" ]] || fail "bob did not get dora's message"
    expect_success bare dora inbox --json
    expect_success bare dora rotate --json
    expect_success bare dora inbox --json
    expect_success bare dora lock
    out_has "locked dora"
    expect_failure bare dora send --to bob "after lock"
    err_has "no secret for dora"
    [[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
    expect_success as dora inbox --json
    ok
else
    err_has "session keyring is unavailable"
    echo "skip - $CURRENT (the session keyring is unavailable here)" >&2
fi

# --- verify, rotate, trust -------------------------------------------------------------------------------------------
step "verify shows the same safety number on both sides"
expect_success as alice verify bob
A_NUM=$(sed -n '2,4p' "$WORK/out")
expect_success as bob verify alice
B_NUM=$(sed -n '2,4p' "$WORK/out")
[[ -n "$A_NUM" && "$A_NUM" == "$B_NUM" ]] || fail "safety numbers differ"
expect_success as alice verify bob --json
[[ $(json 'd["pin"]') == pinned && $(json 'len(d["safetyNumber"].split())') == 12 ]] || fail "verify --json"
[[ $(json 'd["safetyNumber"]') == "$(echo $A_NUM)" ]] || fail "verify --json shows another number than verify"
ok

step "alice queues mail for bob's current key"
expect_success as alice send --to bob "queued one $MARKER"
expect_success as alice send --to bob "queued two $MARKER"
ok

step "bob restores his account on a second machine (his laptop)"
WOTS_HOME="$WORK/homes/bob-laptop" WOTS_SECRET="secret of bob, long enough" "$WOTS_BIN" restore --nick bob \
    >"$WORK/out" 2>"$WORK/err" || fail "restore bob on the laptop"
ok

step "bob rotates his keys"
expect_success as bob rotate --json
BOB_NEW_FP=$(json 'd["newFingerprint"]')
[[ ${#BOB_NEW_FP} -eq 64 && $BOB_NEW_FP != $(json 'd["oldFingerprint"]') ]] || fail "rotate --json"
ok

step "mail queued for bob's old key opens after the rotation, also after restore on a fresh home"
WOTS_HOME="$WORK/homes/bob-restored" WOTS_SECRET="secret of bob, long enough" "$WOTS_BIN" restore --nick bob \
    >"$WORK/out" 2>"$WORK/err" || fail "restore after rotation"
WOTS_HOME="$WORK/homes/bob-restored" WOTS_SECRET="secret of bob, long enough" "$WOTS_BIN" inbox --keep --json \
    >"$WORK/out" 2>"$WORK/err" || fail "inbox --keep on the restored home"
[[ $(json 'len(d)') == 2 && $(json 'all(m["valid"] for m in d)') == True ]] || fail "restored home cannot open queued mail"
[[ $(json '[m["text"] for m in d]') == "['queued one $MARKER', 'queued two $MARKER']" ]] || fail "queued texts"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 2 && $(json 'all(m["valid"] for m in d)') == True ]] || fail "queued mail unreadable after rotate"
expect_success as bob inbox --json
[[ $(json 'len(d)') == 0 ]] || fail "queued mail was not acknowledged"
ok

step "the laptop's outdated keys are refused with a hint, and restoring in place takes the new ones"
laptop() { WOTS_HOME="$WORK/homes/bob-laptop" WOTS_SECRET="secret of bob, long enough" "$WOTS_BIN" "$@" >"$WORK/out" 2>"$WORK/err"; }
expect_failure laptop inbox --keep --json
err_has "run \`wots restore --nick bob\`"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
expect_success laptop restore --nick bob --json
[[ $(json 'd["fingerprint"]') == "$BOB_NEW_FP" ]] || fail "the laptop did not take the new keys"
expect_success laptop inbox --keep --json
ok

step "sending to bob's changed key is refused"
expect_failure as alice send --to bob "after rotation"
err_has "changed"; err_has "wots trust bob"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
ok

step "mail signed with bob's changed key is reported, not shown, and kept until trusted"
expect_success as bob send --to alice "new key says hi $MARKER"
expect_success as alice inbox --json
# Bob's receipts for the mail he read since rotating are signed with the new key too, so they wait beside it.
[[ $(json 'len(d) >= 1 and all(not m["valid"] and m["error"]["code"] == "key_changed" for m in d)') == True ]] \
    || fail "changed-key mail not reported as key_changed"
[[ $(json 'all(m["text"] is None for m in d)') == True ]] || fail "text shown for an unverified message"
expect_success as alice inbox
out_has "NOT SHOWN"
ok

step "after trust, alice reads the held mail and can send again"
expect_success as alice verify bob --json
[[ $(json 'd["pin"]') == changed && $(json 'd["fingerprint"]') == "$BOB_NEW_FP" ]] || fail "verify --json after rotation"
expect_success as alice trust bob --json
[[ $(json 'd["fingerprint"]') == "$BOB_NEW_FP" && $(json 'd["previousFingerprint"]') != None ]] || fail "trust --json"
expect_success as alice inbox --json
[[ $(json 'd[0]["valid"]') == True && $(json 'd[0]["text"]') == "new key says hi $MARKER" ]] || fail "held mail not readable"
expect_success as alice send --to bob "after trust $MARKER"
expect_success as bob inbox --json
[[ $(json 'd[0]["text"]') == "after trust $MARKER" ]] || fail "bob cannot read with his new keys"
ok

# --- restore ---------------------------------------------------------------------------------------------------------
step "restore with the wrong secret fails and says so"
WOTS_HOME="$WORK/homes/alice-new" WOTS_SECRET="not alice's secret" "$WOTS_BIN" restore --nick alice \
    >"$WORK/out" 2>"$WORK/err" && fail "restore with a wrong secret succeeded"
err_has "wrong secret"
[[ ! -e "$WORK/homes/alice-new/profile.json" ]] || fail "wrong secret left a profile"
ok

step "restore with the right secret works and reads old mail"
expect_success as bob send --to alice "waiting for you $MARKER"
WOTS_HOME="$WORK/homes/alice-new" WOTS_SECRET="secret of alice, long enough" "$WOTS_BIN" restore --nick alice \
    >"$WORK/out" 2>"$WORK/err" || fail "restore"
out_has "restored alice"
WOTS_HOME="$WORK/homes/alice-new" WOTS_SECRET="secret of alice, long enough" "$WOTS_BIN" inbox \
    >"$WORK/out" 2>"$WORK/err" || fail "inbox after restore"
out_has "waiting for you $MARKER"
ok

# --- permissions -----------------------------------------------------------------------------------------------------
step "local folders are 0700 and files 0600"
for home in "$WORK"/homes/*/; do
    [[ $(stat -c %a "$home") == 700 ]] || fail "$home is $(stat -c %a "$home")"
    for file in "$home"*; do
        [[ -e "$file" ]] || continue
        [[ $(stat -c %a "$file") == 600 ]] || fail "$file is $(stat -c %a "$file")"
    done
done
ok

# --- unregister ------------------------------------------------------------------------------------------------------
step "unregister deletes the account at the relay and locally"
expect_success as carol register --nick carol
expect_success as carol unregister --yes
expect_failure as alice directory show carol
[[ ! -e "$WORK/homes/carol/profile.json" ]] || fail "local profile left"
ok

# --- hostile relays -------------------------------------------------------------------------------------------------
step "a relay serving cheap scrypt parameters for a restore gets no credential"
python3 "$ROOT/scripts/fake_weak_relay.py" "$WORK/fake.port" "$WORK/fake.log" &
FAKE_PID=$!
for _ in $(seq 1 100); do [[ -s "$WORK/fake.port" ]] && break; sleep 0.05; done
WOTS_RELAY="http://127.0.0.1:$(cat "$WORK/fake.port")" expect_failure as eve restore --nick alice
kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null
err_has "below the floor"
[[ "$(cat "$WORK/fake.log")" == "POST /v1/restore/parameters" ]] || fail "the client asked for more: $(cat "$WORK/fake.log")"
[[ ! -e "$WORK/homes/eve/profile.json" ]] || fail "a profile was written"
ok

step "a relay whose id is not the pinned one is refused before logging in"
PORT2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$RELAY_BIN" serve --host 127.0.0.1 --port "$PORT2" --database "sqlite:$WORK/impostor.sqlite" >"$WORK/impostor.log" 2>&1 &
IMPOSTOR_PID=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT2/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
WOTS_RELAY="http://127.0.0.1:$PORT2" expect_failure as alice inbox
kill -TERM "$IMPOSTOR_PID" 2>/dev/null; wait "$IMPOSTOR_PID" 2>/dev/null
err_has "is not the relay this account was registered at"
grep -q '"/v1/auth/session"' "$WORK/impostor.log" && fail "the client logged in to the impostor"
ok

step "restore asks for a fresh challenge each time, and the restored home pins the relay"
WOTS_HOME="$WORK/homes/alice-pinned" WOTS_SECRET="secret of alice, long enough" "$WOTS_BIN" restore --nick alice \
    >"$WORK/out" 2>"$WORK/err" || fail "restore failed"
python3 -c "import json; p=json.load(open('$WORK/homes/alice-pinned/profile.json')); assert p.get('relayID') and p.get('restoredAt'), p" \
    || fail "restored profile lacks relayID or restoredAt"
ok

# --- directory paging ------------------------------------------------------------------------------------------------
step "$USERS users are listed completely across pages"
register_one() {
    WOTS_HOME="$WORK/homes/many/u$1" WOTS_SECRET="secret of user $1" "$WOTS_BIN" register --nick "user-$(printf %04d "$1")" \
        >/dev/null 2>"$WORK/many-$1.err" || { cat "$WORK/many-$1.err" >&2; return 1; }
}
export -f register_one
export WORK WOTS_BIN
mkdir -p "$WORK/homes/many" && chmod 700 "$WORK/homes/many"
seq 1 "$USERS" | xargs -P 4 -I{} bash -c 'register_one {}' || fail "registering $USERS users"
rm -rf "$WORK/homes/many"
expect_success as alice directory list --json
TOTAL=$(json 'len(d)')
MANY=$(json 'len([e for e in d if e["nickname"].startswith("user-")])')
[[ "$MANY" == "$USERS" ]] || fail "listed $MANY of $USERS users"
[[ $(json 'len(set(e["nickname"] for e in d)) == len(d) and [e["nickname"] for e in d] == sorted(e["nickname"] for e in d)') == True ]] \
    || fail "duplicates or out of order"
expect_success as alice directory list --limit 7
[[ $(wc -l <"$WORK/out") -eq $TOTAL ]] || fail "--limit 7 listed $(wc -l <"$WORK/out") of $TOTAL"
expect_failure as alice directory list --limit 101
err_has "1–100"
ok

# --- conversations: receipts, history, disappearing timers ---------------------------------------------------------
step "send --wait-delivered exits 0 once the recipient's inbox stored it; history shows it, encrypted on disk"
expect_success as erin register --nick erin
expect_success as fred register --nick fred
WOTS_HOME="$WORK/homes/erin" WOTS_SECRET="secret of erin, long enough" "$WOTS_BIN" send --to fred \
    --wait-delivered --timeout 60s "receipt check $MARKER" >"$WORK/wait.out" 2>"$WORK/wait.err" &
WAIT_PID=$!
# The wait ends on the receipt, so fred's inbox may run before or after erin's stream opens: both must work.
for _ in $(seq 1 100); do grep -qF "sent to fred" "$WORK/wait.out" && break; sleep 0.1; done
expect_success as fred inbox
out_has "receipt check $MARKER"
wait "$WAIT_PID" || { cat "$WORK/wait.err" >&2; fail "send --wait-delivered exited $?"; }
grep -qE "delivered to fred|read by fred" "$WORK/wait.out" || fail "no delivered line: $(cat "$WORK/wait.out")"
expect_success as erin history --with fred --json
[[ $(json 'd[0]["text"]') == "receipt check $MARKER" && $(json 'd[0]["status"]') =~ ^(delivered|read)$ ]] \
    || fail "erin's history lacks the delivered message"
expect_success as fred history --with erin --search "RECEIPT CHECK"
out_has "receipt check $MARKER"
! grep -qF "receipt check $MARKER" "$WORK/homes/fred/history.sqlite" || fail "history holds the plaintext"
ok

step "send --wait-delivered with nobody fetching exits 4 after --timeout"
as erin send --to fred --wait-delivered --timeout 1s "nobody fetches this"
STATUS=$?
[[ $STATUS == 4 ]] || fail "exit status $STATUS, not 4"
err_has "not confirmed delivered"
ok

step "settings turn read receipts off; --disappear sets the timer for both sides"
expect_success as fred settings --read-receipts off
out_has "read receipts: off"
expect_success as erin send --to fred --disappear 1h "this one vanishes in an hour"
expect_success as fred inbox
out_has "disappearing messages: after 1 hour (set by erin)"
expect_success as fred history --with erin --json
[[ $(json 'd[-1]["expiresAt"] is not None') == True ]] || fail "the message has no expiry in fred's history"
ok

# --- groups: receipts, timers, files --------------------------------------------------------------------------------
step "group send --disappear --wait-delivered waits for every member; history counts them per member"
expect_success as gina register --nick gina
expect_success as erin group create "trip $MARKER" --members fred,gina --avatar-preset horse --json
[[ $(json 'd["avatar"]') == horse ]] || fail "the group has no avatar"
expect_success as fred inbox
expect_success as gina inbox
WOTS_HOME="$WORK/homes/erin" WOTS_SECRET="secret of erin, long enough" "$WOTS_BIN" send --group "trip $MARKER" \
    --disappear 1h --wait-delivered --timeout 60s "tickets booked $MARKER" >"$WORK/wait.out" 2>"$WORK/wait.err" &
WAIT_PID=$!
for _ in $(seq 1 100); do grep -qF "sent to trip" "$WORK/wait.out" && break; sleep 0.1; done
expect_success as fred inbox
out_has "erin set disappearing messages to 1 hour"
out_has "erin: tickets booked $MARKER"
expect_success as gina inbox
out_has "erin: tickets booked $MARKER"
wait "$WAIT_PID" || { cat "$WORK/wait.err" >&2; fail "send --group --wait-delivered exited $?"; }
grep -qF "delivered to 2/2 members" "$WORK/wait.out" || fail "no delivered line: $(cat "$WORK/wait.out")"
expect_success as erin history --group "trip $MARKER" --json
[[ $(json 'd[-1]["receipts"]["delivered"]') == 2 && $(json 'd[-1]["receipts"]["members"]') == 2 ]] \
    || fail "erin's history does not count both members"
[[ $(json 'd[-1]["expiresAt"] is not None') == True ]] || fail "the group message has no expiry"
expect_success as gina group show "trip $MARKER" --json
[[ $(json 'd["disappearAfter"]') == 3600 ]] || fail "gina's group timer is not an hour"
ok

step "a file sent to a group is uploaded once and saved by each member"
head -c 200000 /dev/urandom >"$WORK/photo.bin"
expect_success as erin send --group "trip $MARKER" --file "$WORK/photo.bin" --caption "the view"
for member in fred gina; do
    expect_success as "$member" inbox --download-dir "$WORK/$member-downloads"
    out_has "photo.bin"
    cmp -s "$WORK/photo.bin" "$WORK/$member-downloads/photo.bin" || fail "$member's copy differs"
done
ok

step "group send --wait-delivered exits 4 when a member never fetches"
as erin send --group "trip $MARKER" --wait-delivered --timeout 1s "nobody fetches this"
STATUS=$?
[[ $STATUS == 4 ]] || fail "exit status $STATUS, not 4"
err_has "0/2 members confirmed"
ok

# --- chat on a terminal ----------------------------------------------------------------------------------------------
if [[ "$DATABASE" == sqlite:* ]]; then
    step "chat on a pseudo-terminal sends only what is typed after it opened (scripts/chat_pty_check.py)"
    python3 "$ROOT/scripts/chat_pty_check.py" "$BIN" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "pty chat check"; }
    ok
fi

# --- retention -------------------------------------------------------------------------------------------------------
# A relay of its own (its own SQLite file) with a 2-second retention, so the main relay's mail is untouched.
if [[ "$DATABASE" == sqlite:* ]]; then
    step "undelivered mail expires after --retention 2s and its sender is told once (wots inbox)"
    SHORT_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    SHORT="http://127.0.0.1:$SHORT_PORT"
    "$RELAY_BIN" serve --host 127.0.0.1 --port "$SHORT_PORT" --database "sqlite:$WORK/short.sqlite" \
        --retention 2s --registrations-per-minute 1000000 >"$WORK/short.log" 2>&1 &
    SHORT_PID=$!
    for _ in $(seq 1 100); do curl -fsS "$SHORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
    WOTS_RELAY=$SHORT expect_success as short-alice register --nick short-alice
    WOTS_RELAY=$SHORT expect_success as short-bob register --nick short-bob
    WOTS_RELAY=$SHORT expect_success as short-alice send --to short-bob "nobody reads this"
    # Poll with a deadline for the event (the sweep runs every second with this retention), never a blind sleep.
    deadline=$((SECONDS + 30)); found=""
    while ((SECONDS < deadline)); do
        WOTS_RELAY=$SHORT expect_success as short-alice inbox --keep --json
        if [[ $(json 'sum(1 for e in d if e.get("kind") == "expired")') == 1 ]]; then found=1; break; fi
        sleep 0.3
    done
    [[ -n "$found" ]] || { kill "$SHORT_PID"; fail "no expiry notice within 30 s: $(tail -3 "$WORK/short.log")"; }
    [[ $(json '[e["to"] for e in d if e.get("kind") == "expired"][0]') == short-bob ]] || fail "notice names $(cat "$WORK/out")"
    WOTS_RELAY=$SHORT expect_success as short-alice inbox
    out_has "to short-bob expired undelivered after"
    WOTS_RELAY=$SHORT expect_success as short-alice inbox --json
    [[ $(json 'len(d)') == 0 ]] || fail "the notice was reported twice: $(cat "$WORK/out")"
    WOTS_RELAY=$SHORT expect_success as short-bob inbox --json
    [[ $(json 'len(d)') == 0 ]] || fail "bob still got the expired message"
    kill -TERM "$SHORT_PID"; wait "$SHORT_PID" 2>/dev/null
    ok
fi

echo "$PASSED passed, 0 failed"
