#!/usr/bin/env bash
# Measures Wots' crypto against OpenSSL's own tools in one run, and prints ratios.
#   seal/s ÷ openssl rsa2048 sign/s    goal ≥ 0.9   (a seal is one RSA-PSS signature + one OAEP wrap + AES-GCM)
#   open/s ÷ openssl rsa2048 sign/s    goal ≥ 0.9   (an open is one PSS verification + one OAEP unwrap + AES-GCM)
#   keygen median ÷ genpkey median     goal ≤ 1.1   (both sides make two RSA-2048 pairs per sample)
# Rates and times are CPU time, as `openssl speed` counts by default, so other work on the machine skews the ratios
# less; Wots and `openssl speed` alternate for several rounds and the table shows the median of the per-round
# ratios. genpkey's CPU time includes starting the openssl process (a few milliseconds).
# Usage: scripts/bench-crypto.sh [--seconds S] [--rounds R] [--keygen-runs N]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=2
rounds=3
runs=21
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --keygen-runs) runs="$2"; shift 2 ;;
        *) echo "unknown option $1 (use --seconds S, --rounds R, --keygen-runs N)" >&2; exit 2 ;;
    esac
done

echo "building crypto-bench (release)…" >&2
swift build -c release --package-path Benchmarks --scratch-path .build-bench >&2
bin="$(swift build -c release --package-path Benchmarks --scratch-path .build-bench --show-bin-path)/crypto-bench"

rates=""
speeds=""
for round in $(seq "$rounds"); do
    echo "round ${round}/${rounds}: Wots seal and open, ${seconds}s each; openssl speed -seconds ${seconds} rsa2048…" >&2
    rates+="$("$bin" --seconds "$seconds" --keygen-runs 0 | tr '\n' ' ');"
    speed="$(openssl speed -seconds "$seconds" rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { print $6, $7 }')"
    if [ -z "$speed" ]; then echo "could not read openssl speed output" >&2; exit 1; fi
    speeds+="${speed};"
done

echo "measuring ${runs} Wots identity generations…" >&2
keygen="$("$bin" --rates 0 --keygen-runs "$runs" | tr '\n' ' ')"

echo "measuring ${runs} × 2 openssl genpkey RSA-2048…" >&2
RATES="$rates" SPEEDS="$speeds" KEYGEN="$keygen" RUNS="$runs" python3 - <<'PY'
import os, resource, statistics, subprocess, time

def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

genpkey, genpkey_wall = [], []
command = ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "/dev/null"]
for _ in range(int(os.environ["RUNS"])):
    cpu, wall = children_cpu(), time.monotonic()
    for _ in range(2):  # one Wots identity is two RSA-2048 pairs
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    genpkey.append((children_cpu() - cpu) * 1000)
    genpkey_wall.append((time.monotonic() - wall) * 1000)

def fields(text):
    return dict(item.split("=", 1) for item in text.split())

rounds = [fields(r) for r in os.environ["RATES"].split(";") if r.strip()]
speeds = [tuple(float(x) for x in s.split()) for s in os.environ["SPEEDS"].split(";") if s.strip()]
keygen = fields(os.environ["KEYGEN"])
seal = [float(r["seal_per_second"]) for r in rounds]
open_ = [float(r["open_per_second"]) for r in rounds]
sign = [s[0] for s in speeds]
seal_ratio = statistics.median(a / b for a, b in zip(seal, sign))
open_ratio = statistics.median(a / b for a, b in zip(open_, sign))
keygen_median = float(keygen["identity_keygen_median_ms"])
genpkey_median = statistics.median(genpkey)
keygen_ratio = keygen_median / genpkey_median
rows = [
    ("seal / CPU s (1 KiB)", f"{statistics.median(seal):,.0f}", f"{statistics.median(sign):,.0f} sign/s", seal_ratio,
     "≥ 0.90", seal_ratio >= 0.9),
    ("open / CPU s (1 KiB)", f"{statistics.median(open_):,.0f}", f"{statistics.median(sign):,.0f} sign/s", open_ratio,
     "≥ 0.90", open_ratio >= 0.9),
    ("keygen 2 × RSA-2048, median CPU ms", f"{keygen_median:,.1f}", f"{genpkey_median:,.1f} ms (2 × genpkey)",
     keygen_ratio, "≤ 1.10", keygen_ratio <= 1.1),
]
print(f"{'measure':36} {'Wots':>10}  {'OpenSSL, same run':>26}  {'ratio':>6}  {'goal':>6}")
for name, ours, theirs, ratio, goal, ok in rows:
    print(f"{name:36} {ours:>10}  {theirs:>26}  {ratio:6.3f}  {goal:>6}  {'ok' if ok else 'MISSED'}")
print("per round (seal/s, open/s, openssl sign/s): "
      + "; ".join(f"{a:,.0f}, {b:,.0f}, {c:,.0f}" for a, b, c in zip(seal, open_, sign)))
print(f"wall clock, for reference: seal {statistics.median(float(r['seal_per_wall_second']) for r in rounds):,.0f}/s, "
      f"open {statistics.median(float(r['open_per_wall_second']) for r in rounds):,.0f}/s, Wots keygen median "
      f"{float(keygen['identity_keygen_wall_median_ms']):,.1f} ms, genpkey pair median "
      f"{statistics.median(genpkey_wall):,.1f} ms; openssl verify {statistics.median(s[1] for s in speeds):,.0f}/s")
print(f"keygen spread (CPU ms): Wots {float(keygen['identity_keygen_min_ms']):.1f}–"
      f"{float(keygen['identity_keygen_max_ms']):.1f}, genpkey pairs {min(genpkey):.1f}–{max(genpkey):.1f}")
PY
