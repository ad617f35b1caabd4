# Sourced by scripts/bench-relay.sh and scripts/bench-groups.sh: start and stop a release wots-relay with its limits
# lifted for load generation. Needs RELAY (the binary) and WORK (a scratch directory) set by the caller.

RELAY_PID=
start_relay() { # $1: --database value, $2: binary (default: this build), then more serve flags; sets RELAY_PID, RELAY_URL
    local out="$WORK/relay-$RANDOM"
    local database=$1 binary=${2:-$RELAY}
    shift; [ $# -gt 0 ] && shift
    "$binary" serve --host 127.0.0.1 --port 0 --database "$database" --send-rate 1000000 \
        --registrations-per-minute 1000000 --mailbox-capacity 1000000 "$@" >"$out.out" 2>"$out.err" &
    RELAY_PID=$!
    for _ in $(seq 1 300); do
        if grep -q '^wots-relay listening on ' "$out.out" 2>/dev/null; then break; fi
        if ! kill -0 "$RELAY_PID" 2>/dev/null; then
            cat "$out.err" >&2
            echo "bench-relay: the relay exited during start" >&2
            exit 1
        fi
        sleep 0.1
    done
    RELAY_URL=$(sed -n 's/^wots-relay listening on //p' "$out.out" | head -1)
    [ -n "$RELAY_URL" ] || { cat "$out.err" >&2; echo "bench-relay: no listening line" >&2; exit 1; }
}
stop_relay() {
    if [ -n "$RELAY_PID" ]; then
        kill -TERM "$RELAY_PID" 2>/dev/null || true
        wait "$RELAY_PID" 2>/dev/null || true
        RELAY_PID=
    fi
}


# The release relay and the load generator (the Benchmarks package is apart, so `make test` never builds it).
build_release_tools() {
    swift build -c release --product wots-relay --scratch-path .build-release 2>&1 | tail -n 1
    for attempt in 1 2 3 4 5 6; do
        if swift build -c release --package-path Benchmarks --scratch-path .build-bench --product relay-bench 2>&1 |
            tail -n 1; then return; fi
        echo "bench: Benchmarks build busy or failed (attempt $attempt), retrying in 20 s" >&2
        sleep 20
    done
}
