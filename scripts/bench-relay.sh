#!/usr/bin/env bash
# `make bench-relay`: Prosody (file store) first, then wots-relay (an older build given in BENCH_BEFORE_RELAY, then this
# one on SQLite, then on PostgreSQL), then Prosody's file store again, then Prosody on SQLite: three shapes each
# (durable store, drain, online at saturation and at offered rates; Wots stores over HTTP and then over the stream,
# whose pipelined `send` frames are the shape of Prosody's stanzas written flat out), then the idle-connection ceiling. The offered rates
# are 1,000, 2,500 and 5,000 msg/s and half Prosody's saturation (the issue's p99 target), lowest first, then each
# server's own saturation rate. Prosody's file store runs before and after the Wots runs and the ratios are taken against the mean of the two:
# on a shared VM the speed of the same binary drifts by tens of percent over the minutes between. Everything on
# loopback, every shape bounded in time. Writes the table to docs/BENCHMARKS.md and the raw log beside it in the temp dir.
#
# Knobs (environment): BENCH_USERS (50), BENCH_RATES (1000,2500,5000), BENCH_RATE_SECONDS (3),
# BENCH_BEFORE_RELAY (path of an older wots-relay binary measured on SQLite as the "before" column, alternating with
# this build BENCH_AB_ROUNDS (2) times each; the table shows their means and every round),
# BENCH_STORE_PER_SENDER (600), BENCH_STREAM_STORE_PER_SENDER (1200), BENCH_ONLINE_PER_SENDER (1000), BENCH_PROSODY_FILE_PER_SENDER (300),
# BENCH_PROSODY_SQL_PER_SENDER (60), BENCH_PROSODY_ONLINE_PER_SENDER (1000), BENCH_SATURATION_CEILING (30000), BENCH_CONN_STEPS
# (1000,5000,10000,15000,19500), BENCH_SKIP (space-separated: sqlite postgres prosody-file prosody-sql connections),
# BENCH_NO_DOC=1 to leave docs/BENCHMARKS.md alone.
set -euo pipefail
cd "$(dirname "$0")/.."

USERS=${BENCH_USERS:-50}
RATES=${BENCH_RATES:-1000,2500,5000}
RATE_SECONDS=${BENCH_RATE_SECONDS:-3}
STORE_PER_SENDER=${BENCH_STORE_PER_SENDER:-600}
STREAM_STORE_PER_SENDER=${BENCH_STREAM_STORE_PER_SENDER:-1200}
ONLINE_PER_SENDER=${BENCH_ONLINE_PER_SENDER:-1000}
PROSODY_FILE_PER_SENDER=${BENCH_PROSODY_FILE_PER_SENDER:-300}
PROSODY_SQL_PER_SENDER=${BENCH_PROSODY_SQL_PER_SENDER:-60}
PROSODY_ONLINE_PER_SENDER=${BENCH_PROSODY_ONLINE_PER_SENDER:-1000}
# Enough messages sealed for the saturation rate: relay-bench's default (15,000 msg/s) was below it on a fast VM.
SATURATION_CEILING=${BENCH_SATURATION_CEILING:-30000}
CONN_STEPS=${BENCH_CONN_STEPS:-1000,5000,10000,15000,19500}
SKIP=" ${BENCH_SKIP:-} "
RELAY=.build-release/release/wots-relay
BEFORE_RELAY=${BENCH_BEFORE_RELAY:-}
AB_ROUNDS=${BENCH_AB_ROUNDS:-2}
BENCH=.build-bench/release/relay-bench

# The connection ceiling needs one descriptor per socket in the relay and in the load generator.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

. scripts/bench-relay-lib.sh

# The offered rates for Wots: the fixed ones and half Prosody's saturation when it was measured, lowest first, then its
# own saturation. Lowest first, so that no rate is measured while the relay still works off the backlog of a higher
# rate it could not keep up with.
wots_rates() {
    local half
    half=$(sed -n 's/^RESULT prosody_file\.online_rate=\([0-9]*\).*/\1/p' "$LOG" 2>/dev/null | head -1)
    echo "$(printf '%s\n' ${RATES//,/ } ${half:+$((half / 2))} | sort -n | uniq | paste -sd,),saturation"
}

run_shapes() { # $1 label, $2 database, $3 binary (default: this build)
    start_relay "$2" "${3:-}"
    echo "--- $1: relay at $RELAY_URL (pid $RELAY_PID)"
    timeout 400 "$BENCH" shapes --url "$RELAY_URL" --pid "$RELAY_PID" --label "$1" --users "$USERS" \
        --store-per-sender "$STORE_PER_SENDER" --stream-store-per-sender "$STREAM_STORE_PER_SENDER" \
        --online-per-sender "$ONLINE_PER_SENDER" --rates "$(wots_rates)" --saturation-ceiling "$SATURATION_CEILING" \
        --rate-seconds "$RATE_SECONDS" --timeout 30 | tee -a "$LOG" || echo "bench-relay: $1 shapes failed" | tee -a "$LOG"
    stop_relay
}

# Inner phase: run by scripts/with-postgres.sh, which exports WOTS_TEST_POSTGRES_URL.
if [ "${BENCH_RELAY_PHASE:-}" = postgres ]; then
    WORK=$BENCH_RELAY_WORK
    LOG=$BENCH_RELAY_LOG
    trap stop_relay EXIT
    run_shapes wots_pg "$WOTS_TEST_POSTGRES_URL"
    exit 0
fi

echo "==> building wots-relay and relay-bench (release)"
build_release_tools

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-bench-relay.XXXXXX")
LOG="$WORK/results.log"
PROSODY_PID=
cleanup() {
    stop_relay
    if [ -n "$PROSODY_PID" ]; then kill "$PROSODY_PID" 2>/dev/null || true; wait "$PROSODY_PID" 2>/dev/null || true; fi
    echo "raw log kept at $LOG"
}
trap cleanup EXIT
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "==> results in $LOG"

APT_UPDATED=no
install_missing() { # $@: Debian packages; installs those missing (as root), fails naming them when it cannot
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "bench-relay: ${missing[*]} missing (apt-get install ${missing[*]} as root)" | tee -a "$LOG"
        return 1
    fi
    echo "bench-relay: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine has no package lists, and `apt-get install` alone then cannot locate the packages.
    if [ "$APT_UPDATED" = no ]; then
        apt-get update -qq >&2 || return 1
        APT_UPDATED=yes
    fi
    apt-get install -y -qq "${missing[@]}" >/dev/null || return 1
}

run_prosody() { # $1 label, $2 storage line, $3 port, $4 messages per sender
    if ! install_missing prosody lua-dbi-sqlite3; then
        echo "bench-relay: $1 skipped (prosody could not be installed)" | tee -a "$LOG"
        return
    fi
    python3 -c 'import slixmpp' 2>/dev/null || python3 -m pip install -q slixmpp
    local data="$WORK/$1"
    mkdir -p "$data/localhost/accounts"
    for i in $(seq 0 $((USERS - 1))); do
        echo 'return { ["password"] = "pw"; };' >"$data/localhost/accounts/s$i.dat"
        echo 'return { ["password"] = "pw"; };' >"$data/localhost/accounts/r$i.dat"
    done
    sed -e "s|@DATA@|$data|g" -e "s|@PORT@|$3|" -e "s|@STORAGE@|$2|" scripts/prosody/prosody.cfg.lua.in >"$data/prosody.cfg.lua"
    prosody --config "$data/prosody.cfg.lua" >"$data/stdout" 2>&1 &
    PROSODY_PID=$!
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$3") 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "--- $1: prosody $(dpkg-query -W -f='${Version}' prosody 2>/dev/null) on 127.0.0.1:$3 (pid $PROSODY_PID)"
    timeout 300 python3 scripts/prosody/xmpp_bench.py --port "$3" --pid "$PROSODY_PID" --label "$1" --users "$USERS" \
        --store-per-sender "$4" --online-per-sender "$PROSODY_ONLINE_PER_SENDER" --rates "$RATES,saturation" \
        --rate-seconds "$RATE_SECONDS" --timeout 30 |
        tee -a "$LOG" || echo "bench-relay: $1 failed" | tee -a "$LOG"
    kill "$PROSODY_PID" 2>/dev/null || true
    wait "$PROSODY_PID" 2>/dev/null || true
    PROSODY_PID=
}

case "$SKIP" in *" prosody-file "*) ;; *)
    echo "==> Prosody, default file storage"
    run_prosody prosody_file "" 15222 "$PROSODY_FILE_PER_SENDER"
    ;;
esac
# With a before build the two alternate, AB_ROUNDS times each: on this shared VM the same binary drifts by tens of
# percent between minutes, and one run of each put whichever came first on a different minute than the other.
rounds=1
[ -n "$BEFORE_RELAY" ] && rounds=$AB_ROUNDS
# Odd rounds run the before build first, even rounds this build first: a VM that slows (or speeds up) through the
# run would otherwise always favour the same one.
run_before() {
    [ -n "$BEFORE_RELAY" ] || return 0
    echo "==> wots-relay before ($BEFORE_RELAY) on SQLite, round $1 of $rounds"
    run_shapes wots_before "sqlite:$WORK/before-$1.sqlite" "$BEFORE_RELAY"
}
run_this() {
    case "$SKIP" in *" sqlite "*) ;; *)
        echo "==> wots-relay on SQLite, round $1 of $rounds"
        run_shapes wots_sqlite "sqlite:$WORK/relay-$1.sqlite"
        ;;
    esac
}
for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
        run_before "$round"
        run_this "$round"
    else
        run_this "$round"
        run_before "$round"
    fi
done

case "$SKIP" in *" postgres "*) ;; *)
    echo "==> wots-relay on PostgreSQL"
    BENCH_RELAY_PHASE=postgres BENCH_RELAY_WORK="$WORK" BENCH_RELAY_LOG="$LOG" \
        scripts/with-postgres.sh bash "$0" || echo "bench-relay: PostgreSQL phase failed" | tee -a "$LOG"
    ;;
esac

case "$SKIP" in *" prosody-file "*) ;; *)
    echo "==> Prosody, default file storage, again (the ratios use the mean of both runs)"
    run_prosody prosody_file_again "" 15224 "$PROSODY_FILE_PER_SENDER"
    ;;
esac

case "$SKIP" in *" prosody-sql "*) ;; *)
    echo "==> Prosody, SQLite storage (mod_storage_sql + lua-dbi-sqlite3)"
    run_prosody prosody_sql 'storage = { offline = "sql" }; sql = { driver = "SQLite3", database = "prosody.sqlite" }' \
        15223 "$PROSODY_SQL_PER_SENDER"
    ;;
esac

case "$SKIP" in *" connections "*) ;; *)
    echo "==> connection ceiling (wots-relay on SQLite, ulimit -n $(ulimit -n))"
    # The default cap is nine tenths of the descriptor limit; the ceiling is measured up to the limit itself, less
    # what the relay needs beside its sockets.
    start_relay "sqlite:$WORK/conn.sqlite" "" --max-connections $(($(ulimit -n) - 100))
    timeout 400 "$BENCH" connections --url "$RELAY_URL" --pid "$RELAY_PID" --label wots_conn --steps "$CONN_STEPS" \
        --timeout 180 | tee -a "$LOG" || echo "bench-relay: connection ceiling failed" | tee -a "$LOG"
    stop_relay
    ;;
esac

if [ "${BENCH_NO_DOC:-0}" != 1 ]; then
    python3 scripts/prosody/write_table.py "$LOG" docs/BENCHMARKS.md \
        --date "$STARTED" --command "${BEFORE_RELAY:+BENCH_BEFORE_RELAY=$BEFORE_RELAY }make bench-relay ($0${BENCH_SKIP:+, BENCH_SKIP=$BENCH_SKIP})" \
        --nofile "$(ulimit -n)" --load "$LOAD_AT_START / $(cut -d' ' -f1-3 /proc/loadavg)" --users "$USERS" --rates "$RATES" --rate-seconds "$RATE_SECONDS" --notes scripts/prosody/bench-notes.md
    echo "==> docs/BENCHMARKS.md written"
fi
