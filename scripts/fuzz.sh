#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of Fuzz/ (one per decoder that reads outside input) with
# `-sanitize=fuzzer,address` and runs each for FUZZ_SECONDS seconds (default 60) from its committed seed corpus
# Fuzz/Corpus/TARGET. New corpus entries go to FUZZ_WORK_CORPUS/TARGET (default .build-fuzzer/corpus, never
# committed); a crash, a hang (over 10 s on one input) or a leak is saved to Fuzz/crashes/TARGET/ (gitignored) and
# the script exits 1 after running every target. `make test` runs it briefly with a throwaway work corpus.
#
#   make fuzz                                   every target, 60 s each
#   make fuzz FUZZ_SECONDS=3600                 a long run
#   FUZZ_TARGETS="envelope cursors" make fuzz   some targets (names as in Fuzz/Corpus/)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
scratch="$PWD/${FUZZ_SCRATCH:-.build-fuzzer}"
work="${FUZZ_WORK_CORPUS:-$scratch/corpus}"
targets="${FUZZ_TARGETS:-$(cd Fuzz/Corpus && echo *)}"
# Swift's backtracer reads the crashed process's stack in a way AddressSanitizer reports as a second error, hiding
# the first; libFuzzer prints its own stack.
export SWIFT_BACKTRACE=enable=no
build=(swift build --package-path Fuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address)

# ld.gold warns "Cannot export local symbol" for every sanitizer-instrumented object it links: harmless, dropped.
echo "==> building the fuzz targets: WotsCore, WotsCrypto, WotsTransparency, WotsTesting with ASan and coverage"
start=$SECONDS
"${build[@]}" 2>&1 | { grep -v "Cannot export local symbol" || true; }
echo "built in $((SECONDS - start)) s"
bin="$("${build[@]}" --show-bin-path)"

failed=()
for target in $targets; do
    crashes="Fuzz/crashes/$target"
    log="$scratch/fuzz-logs/$target.log"
    mkdir -p "$work/$target" "$crashes" "$(dirname "$log")"
    echo "==> fuzz-$target for $seconds s"
    if "$bin/fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$work/$target" "Fuzz/Corpus/$target" >"$log" 2>&1; then
        runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
        coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)"
        echo "    no crash: $runs inputs, $coverage, corpus in $work/$target"
    else
        failed+=("$target")
        echo "    FAILED: the input is in $crashes/; log $log. What went wrong:"
        grep -E -A12 "Fatal error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|ALARM|out-of-memory" "$log" |
            head -30 | sed 's/^/    /' || true
        grep -E "Test unit written" "$log" | sed 's/^/    /' || true
        echo "    reproduce: SWIFT_BACKTRACE=enable=no $bin/fuzz-$target $crashes/<file>"
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing found crashes in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzzing: no crash in $(echo $targets | wc -w) targets, $seconds s each"
