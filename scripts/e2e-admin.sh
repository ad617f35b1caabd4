#!/usr/bin/env bash
# End-to-end test of the operator's commands: `wots-relay admin` (stats, accounts, invites) in its own process against
# the database of a running relay, registration modes, and a suspension that closes an open stream at once. Runs on
# a throwaway SQLite file, then (WOTS_E2E_POSTGRES=1) again on a throwaway PostgreSQL. Prints "N passed, 0 failed";
# exits non-zero naming the failing step.
#
# Environment:
#   WOTS_E2E_SCRATCH      SwiftPM scratch path (default .build)
#   WOTS_E2E_SKIP_BUILD=1 use binaries already built in the scratch path
#   WOTS_E2E_KEEP=1       keep the work folder (relay database, log, homes) for inspection
#   WOTS_E2E_DATABASE     relay database URL instead of a temporary SQLite file (e.g. postgres://…)
#   WOTS_E2E_POSTGRES=1   after the SQLite run, run again on a throwaway PostgreSQL (scripts/with-postgres.sh)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${WOTS_E2E_SCRATCH:-$ROOT/.build}
cd "$ROOT"

source "$ROOT/scripts/e2e-binaries.sh"
e2e_binaries "$ROOT/scripts/e2e-admin.sh" "the same operator scenarios"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-e2e-admin.XXXXXX")
RELAY_PID=""
LISTEN_PID=""
cleanup() {
    [[ -n "$LISTEN_PID" ]] && kill "$LISTEN_PID" 2>/dev/null
    stop_relay
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
# wots-relay admin against the relay's database, in a process of its own.
admin() { "$RELAY_BIN" admin "$@" --database "$DATABASE" >"$WORK/out" 2>"$WORK/err"; }
expect_success() { "$@" || fail "exit status $? from: ${*:2}"; }
expect_failure() { if "$@"; then fail "succeeded but should have failed: ${*:2}"; fi; }
err_has() { grep -qiF -- "$1" "$WORK/err" || fail "stderr lacks \"$1\""; }
json() { python3 -c "import json,sys; d=json.load(open('$WORK/out')); print($1)"; }
# Polls (every 0.1 s, for at most 10 s) until COMMAND succeeds.
within_10s() {
    for _ in $(seq 1 100); do "$@" && return 0; sleep 0.1; done
    return 1
}

unset WOTS_SECRET WOTS_HOME WOTS_INVITE XDG_DATA_HOME
# The operator's address on a free port, so this relay never fights another over 127.0.0.1:9090.
export WOTS_ADMIN_ADDRESS=127.0.0.1:0
mkdir -p "$WORK/homes"
chmod 700 "$WORK/homes"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export WOTS_RELAY="http://127.0.0.1:$PORT"
DATABASE=${WOTS_E2E_DATABASE:-sqlite:$WORK/relay.sqlite}

start_relay() {
    "$RELAY_BIN" serve --host 127.0.0.1 --port "$PORT" --database "$DATABASE" --registration "$1" \
        --registrations-per-minute 1000000 >>"$WORK/relay.log" 2>&1 &
    RELAY_PID=$!
    for _ in $(seq 1 100); do
        curl -fsS "$WOTS_RELAY/healthz" >/dev/null 2>&1 && return 0
        kill -0 "$RELAY_PID" 2>/dev/null || fail "relay exited: $(tail -5 "$WORK/relay.log")"
        sleep 0.2
    done
    fail "relay not healthy on port $PORT"
}
stop_relay() {
    if [[ -n "$RELAY_PID" ]]; then
        kill -TERM "$RELAY_PID" 2>/dev/null
        wait "$RELAY_PID" 2>/dev/null
        RELAY_PID=""
    fi
}

# --- invites, before the relay runs ----------------------------------------------------------------------------------
step "invites create prints a code once and stores only its hash (${DATABASE%%:*})"
expect_success admin invites create --json
ONE_USE=$(json 'd["code"]')
ONE_USE_ID=$(json 'd["id"]')
[[ $ONE_USE == wots-inv-* && ${#ONE_USE} -ge 41 ]] || fail "code $ONE_USE"
expect_success admin invites create --uses 2 --expires 7d
TWO_USES=$(head -1 "$WORK/out")
TWO_USES_ID=$(sed -n 2p "$WORK/out" | sed -E 's/^invite ([0-9a-f]+):.*/\1/')
expect_success admin invites create --expires 1s --json
SHORT=$(json 'd["code"]')
SHORT_ID=$(json 'd["id"]')
expect_success admin invites list
grep -qF "$ONE_USE" "$WORK/out" && fail "invites list shows a code"
grep -qF "$TWO_USES_ID  usable  used 0/2" "$WORK/out" || fail "invites list lacks $TWO_USES_ID"
if [[ "$DATABASE" == sqlite:* ]]; then
    grep -qaF "$ONE_USE" "${DATABASE#sqlite:}"* && fail "the database file holds a code"
fi
ok

# --- registration by invitation --------------------------------------------------------------------------------------
step "relay starts with --registration invite"
start_relay invite
ok

step "registering without an invite is refused with one line"
expect_failure as alice register --nick alice
err_has "invitation"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "more than one stderr line"
[[ ! -e "$WORK/homes/alice/profile.json" ]] || fail "a refused registration left an account"
ok

step "alice registers with a one-use invite; bob cannot use it again"
expect_success as alice register --nick alice --invite "$ONE_USE"
expect_failure as bob register --nick bob --invite "$ONE_USE"
err_has "not valid"
ok

step "bob registers with \$WOTS_INVITE; the invite is revoked; carol cannot use it"
WOTS_INVITE="$TWO_USES" expect_success as bob register --nick bob
expect_success admin invites revoke "$TWO_USES_ID"
expect_failure as carol register --nick carol --invite "$TWO_USES"
err_has "not valid"
ok

step "an expired invite is refused"
expired() { admin invites list --json && [[ $(json "[i['standing'] for i in d if i['id'] == '$SHORT_ID'][0]") == expired ]]; }
within_10s expired || fail "the 1 s invite never expired"
expect_failure as carol register --nick carol --invite "$SHORT"
err_has "not valid"
ok

step "invites list --json tells used up, revoked and expired apart"
expect_success admin invites list --json
STANDINGS=$(json "sorted((i['id'], i['standing'], i['uses']) for i in d)")
EXPECTED=$(python3 -c "print(sorted([('$ONE_USE_ID', 'used_up', 1), ('$TWO_USES_ID', 'revoked', 1), ('$SHORT_ID', 'expired', 0)]))")
[[ "$STANDINGS" == "$EXPECTED" ]] || fail "standings $STANDINGS, expected $EXPECTED"
ok

# --- statistics and accounts -----------------------------------------------------------------------------------------
step "alice sends bob a message; stats counts accounts, queued mail and today's registrations"
expect_success as alice send --to bob "hello bob"
expect_success admin stats --json
[[ $(json 'd["accounts"]') == 2 ]] || fail "accounts"
[[ $(json 'd["queuedMessages"]') == 1 ]] || fail "queued messages"
[[ $(json 'd["queuedBytes"] > 0 and d["oldestQueuedAt"] is not None') == True ]] || fail "queued bytes and oldest"
[[ $(json 'len(d["registrationsPerDay"])') == 30 ]] || fail "30 days"
[[ $(json 'd["registrationsPerDay"][-1]["registrations"]') == 2 ]] || fail "today's registrations"
ok

step "accounts list and show"
expect_success admin accounts list --json
[[ $(json '[a["nickname"] for a in d]') == "['alice', 'bob']" ]] || fail "list"
expect_success admin accounts show bob
grep -qF "status:       active" "$WORK/out" || fail "bob not active"
grep -qF "queued:       1 messages" "$WORK/out" || fail "bob's queue"
ok

# --- suspension against the running relay ----------------------------------------------------------------------------
step "suspending bob closes his open stream at once and he cannot log in"
WOTS_HOME="$WORK/homes/bob" WOTS_SECRET="secret of bob, long enough" "$WOTS_BIN" listen --json \
    >"$WORK/listen.out" 2>"$WORK/listen.err" &
LISTEN_PID=$!
within_10s grep -qF "hello bob" "$WORK/listen.out" || fail "listen did not deliver: $(cat "$WORK/listen.err")"
expect_success admin accounts suspend bob
SUSPENDED_AT=$(date +%s%N)
listen_ended() { ! kill -0 "$LISTEN_PID" 2>/dev/null; }
within_10s listen_ended || fail "bob's stream is still open 10 s after the suspension"
echo "   bob's listen ended $(( ($(date +%s%N) - SUSPENDED_AT) / 1000000 )) ms after admin returned (polled every 100 ms)" >&2
wait "$LISTEN_PID"; LISTEN_STATUS=$?
LISTEN_PID=""
[[ $LISTEN_STATUS -ne 0 ]] || fail "listen exited 0"
grep -qi "suspended" "$WORK/listen.err" || fail "listen did not say why: $(cat "$WORK/listen.err")"
expect_failure as bob inbox
err_has "suspended"
ok

step "a suspended account keeps its nickname (the refusal spends no use) and still receives mail"
expect_success admin invites create --json
SPARE=$(json 'd["code"]')
SPARE_ID=$(json 'd["id"]')
expect_failure as mallory register --nick BOB --invite "$SPARE"
err_has "taken"
expect_success admin invites list --json
[[ $(json "[i['uses'] for i in d if i['id'] == '$SPARE_ID'][0]") == 0 ]] || fail "the refused registration spent a use"
expect_success as alice send --to bob "while you were suspended"
expect_success admin accounts list --suspended --json
[[ $(json '[a["nickname"] for a in d if a["suspendedAt"]]') == "['bob']" && $(json 'len(d)') == 1 ]] || fail "list"
ok

step "unsuspending lets bob read his mail again"
expect_success admin accounts unsuspend bob
expect_success as bob inbox
grep -qF "while you were suspended" "$WORK/out" || fail "bob's inbox"
ok

step "deleting bob ends his account at once; his nickname stays taken"
expect_success admin accounts delete bob --yes
expect_failure as bob inbox
expect_success admin stats --json
[[ $(json 'd["accounts"]') == 1 ]] || fail "accounts after deletion"
expect_failure admin accounts show bob
ok

# --- closed ----------------------------------------------------------------------------------------------------------
step "with --registration closed nobody registers, and alice still works"
stop_relay
start_relay closed
expect_failure as carol register --nick carol --invite "$ONE_USE"
err_has "no new registrations"
expect_success as alice whoami
ok

echo "$PASSED passed, 0 failed"
