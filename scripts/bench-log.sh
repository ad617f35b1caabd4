#!/usr/bin/env bash
# Key transparency at scale: builds a log of N leaves (default 1,000,000) in memory and in SQLite and prints proof
# generation and verification times per proof, and what the log append adds to a registration on SQLite.
# Usage: scripts/bench-log.sh [LEAVES]
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building log-bench (release)…" >&2
swift build -c release --package-path Benchmarks --scratch-path .build-bench --product log-bench >&2
"$(swift build -c release --package-path Benchmarks --scratch-path .build-bench --show-bin-path)/log-bench" "${1:-1000000}"
