#!/usr/bin/env bash
# `make bench-groups`: group messages of 10, 100 and 256 members beside 1:1 messages, in one run against one release
# wots-relay on SQLite over loopback: the sender's sealing cost per message, the relay's accepted msg/s (senders
# posting one request at a time each), delivered slots/s to members listening on `?groups=true` streams and
# acknowledging, and the relay's CPU. Knobs: BENCH_GROUP_SIZES (10,100,256), BENCH_GROUP_MESSAGES (200 per size),
# BENCH_GROUP_SENDERS (4).
set -euo pipefail
cd "$(dirname "$0")/.."

RELAY=.build-release/release/wots-relay
BENCH=.build-bench/release/relay-bench
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-bench-groups.XXXXXX")
. scripts/bench-relay-lib.sh
trap stop_relay EXIT

echo "==> building wots-relay and relay-bench (release)"
build_release_tools

start_relay "sqlite:$WORK/relay.sqlite"
echo "==> relay at $RELAY_URL (pid $RELAY_PID), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 900 "$BENCH" groups --url "$RELAY_URL" --pid "$RELAY_PID" --label wots \
    --sizes "${BENCH_GROUP_SIZES:-10,100,256}" --messages "${BENCH_GROUP_MESSAGES:-200}" \
    --senders "${BENCH_GROUP_SENDERS:-4}" | tee "$WORK/results.log"
echo "raw log kept at $WORK/results.log"
