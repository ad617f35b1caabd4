#!/usr/bin/env bash
# `make profile-relay`: where the relay's CPU goes when it delivers online. Starts the release wots-relay (or the binary
# given as $1) on a temporary SQLite file, drives it with relay-bench (a short store and drain, then 30,000 messages
# online at saturation and 4 s at 2,500 msg/s offered), samples those two with `perf record -g`, and prints the
# CPU-µs per delivered message, the system calls per delivered message at saturation (`perf stat`), and the top
# shared objects and symbols. Installs linux-perf when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
RELAY=${1:-.build-release/release/wots-relay}
BENCH=.build-bench/release/relay-bench
if [ -z "${1:-}" ]; then swift build -c release --product wots-relay --scratch-path .build-release 2>&1 | tail -n 1; fi
swift build -c release --package-path Benchmarks --scratch-path .build-bench --product relay-bench 2>&1 | tail -n 1
if ! command -v perf >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf >/dev/null
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-profile.XXXXXX")
"$RELAY" serve --host 127.0.0.1 --port 0 --database "sqlite:$WORK/relay.sqlite" --send-rate 1000000 \
    --registrations-per-minute 1000000 --mailbox-capacity 1000000 >"$WORK/relay.out" 2>"$WORK/relay.err" &
RELAY_PID=$!
trap 'kill "$RELAY_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
    grep -q '^wots-relay listening on ' "$WORK/relay.out" 2>/dev/null && break
    sleep 0.1
done
URL=$(sed -n 's/^wots-relay listening on //p' "$WORK/relay.out" | head -1)
[ -n "$URL" ] || { cat "$WORK/relay.err" >&2; exit 1; }
timeout 300 "$BENCH" shapes --url "$URL" --pid "$RELAY_PID" --label profile --users 50 --store-per-sender 20 \
    --stream-store-per-sender 0 --online-per-sender 600 --rates 2500 --rate-seconds 4 --timeout 60 >"$WORK/bench.out" &
BENCH_PID=$!
# System calls are counted over the online saturation shape alone: it starts when the drain line is printed and
# ends with its own line.
SYSCALLS=writev,write,read,futex,epoll_wait,pwrite64,pread64,fdatasync
events=$(echo "$SYSCALLS" | sed 's/\([a-z0-9_]*\)/syscalls:sys_enter_\1/g'),context-switches
until grep -q '^drain' "$WORK/bench.out" || ! kill -0 "$BENCH_PID" 2>/dev/null; do sleep 0.05; done
perf stat -e "$events" -p "$RELAY_PID" -o "$WORK/syscalls.txt" &
STAT_PID=$!
# Sampled from here, not from the relay's start: attached through registration and the store, perf woke millions of
# times ("Woken up 3981014 times") and took a core from the relay and the load generator.
perf record -F 999 -g -p "$RELAY_PID" -o "$WORK/perf.data" 2>"$WORK/perf.err" &
PERF_PID=$!
until grep -q '^online saturation' "$WORK/bench.out" || ! kill -0 "$BENCH_PID" 2>/dev/null; do sleep 0.05; done
kill -INT "$STAT_PID"
wait "$STAT_PID" || true
wait "$BENCH_PID"
kill -INT "$PERF_PID"
wait "$PERF_PID" || true
grep -v '^RESULT' "$WORK/bench.out" | grep -E 'online|drain'
rate=$(sed -n 's/^RESULT profile\.online_rate=//p' "$WORK/bench.out")
cores=$(sed -n 's/^RESULT profile\.online_relay_cores=//p' "$WORK/bench.out")
awk -v c="$cores" -v r="$rate" 'BEGIN { printf "relay CPU per delivered message at saturation: %.0f µs (%s cores, %s msg/s)\n", c * 1e6 / r, c, r }'
delivered=$(sed -n 's/^RESULT profile\.online_msgs=//p' "$WORK/bench.out")
echo "--- system calls and context switches per delivered message, online at saturation"
awk -v n="$delivered" '/syscalls:|context-switches/ { gsub(",", "", $1); sub("syscalls:sys_enter_", "", $2)
    printf "    %-18s %6.2f\n", $2, $1 / n }' "$WORK/syscalls.txt"
ls -l "$WORK"/relay.sqlite* | awk '{ print "after the run: " $9 " " $5 " bytes" }'
echo "--- shares of the relay's samples by shared object"
perf report -i "$WORK/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | sed -n '1,12p'
echo "--- top symbols"
perf report -i "$WORK/perf.data" --no-children --sort symbol --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' | sed -n '1,40p' |
    cut -c1-160
echo "perf data kept at $WORK/perf.data"
