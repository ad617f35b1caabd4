#!/usr/bin/env bash
# `make bench`: every benchmark, each bounded in time. Figures are ratios against references measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
for bench in bench-crypto bench-storage bench-relay bench-groups bench-log bench-attachments; do
    if [ -f "scripts/$bench.sh" ]; then
        printf '\n==> %s\n' "$bench"
        bash "scripts/$bench.sh"
    fi
done
