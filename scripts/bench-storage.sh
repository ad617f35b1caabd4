#!/usr/bin/env bash
# Measures Wots' storage against the raw database drivers in one run, per backend, and prints a table each:
#   directory page of 100: time of the last page ÷ time of the first, at 100,000 entries (and more with --entries)
#                                                                                              goal ≤ 1.5
#   mailbox append, 32 concurrent single appends and 100-envelope batches, in messages/s, beside the raw driver
#   inserting rows of the same size into the same table (autocommit singles; 100-row transactions) with the same
#   durability (SQLite WAL + synchronous=FULL; PostgreSQL fsync=on, synchronous_commit=on); ratio = Wots ÷ raw.
# SQLite files and the throwaway PostgreSQL live under .build-bench/ (a real disk: fsync must cost what it costs).
# Usage: scripts/bench-storage.sh [--entries 100000,1000000] [--seconds S] [--rounds R] [--backend sqlite|postgres]
set -euo pipefail
cd "$(dirname "$0")/.."

entries=100000,1000000
seconds=2
rounds=2
backends="sqlite postgres"
while [ $# -gt 0 ]; do
    case "$1" in
        --entries) entries="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --backend) backends="$2"; shift 2 ;;
        *) echo "unknown option $1 (use --entries N[,N…], --seconds S, --rounds R, --backend sqlite|postgres)" >&2; exit 2 ;;
    esac
done

echo "building storage-bench (release)…" >&2
swift build -c release --package-path Benchmarks --scratch-path .build-bench --product storage-bench >&2
bin="$(swift build -c release --package-path Benchmarks --scratch-path .build-bench --show-bin-path)/storage-bench"

work="$PWD/.build-bench/storage-bench-work"
mkdir -p "$work"
chmod 755 "$work"  # the PostgreSQL server runs as the postgres user when this runs as root
trap 'rm -rf "$work"' EXIT
options=(--entries "$entries" --seconds "$seconds" --rounds "$rounds")

for backend in $backends; do
    echo
    case "$backend" in
        sqlite) "$bin" --backend sqlite --work-directory "$work" "${options[@]}" ;;
        postgres) TMPDIR="$work" bash scripts/with-postgres.sh "$bin" --backend postgres "${options[@]}" ;;
        *) echo "unknown backend $backend (sqlite or postgres)" >&2; exit 2 ;;
    esac
done
