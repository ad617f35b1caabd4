# Sourced by the end-to-end scripts (scripts/e2e.sh, scripts/e2e-admin.sh) after they set ROOT and SCRATCH.
# e2e_binaries SCRIPT LABEL: builds wots and wots-relay (unless WOTS_E2E_SKIP_BUILD=1) and sets BIN, WOTS_BIN and
# RELAY_BIN. With WOTS_E2E_POSTGRES=1 it runs SCRIPT on SQLite, then again on a throwaway PostgreSQL
# (scripts/with-postgres.sh), announcing "==> LABEL on PostgreSQL", and does not return.
e2e_binaries() {
    local script=$1 label=$2
    if [[ "${WOTS_E2E_SKIP_BUILD:-0}" != 1 ]]; then
        echo "building wots and wots-relay…" >&2
        swift build --scratch-path "$SCRATCH" --product wots-relay >&2 || { echo "FAIL: build wots-relay" >&2; exit 1; }
        swift build --scratch-path "$SCRATCH" --product wots >&2 || { echo "FAIL: build wots" >&2; exit 1; }
    fi
    BIN=$(swift build --scratch-path "$SCRATCH" --show-bin-path)
    WOTS_BIN="$BIN/wots"
    RELAY_BIN="$BIN/wots-relay"
    [[ -x "$WOTS_BIN" && -x "$RELAY_BIN" ]] || { echo "FAIL: binaries missing in $BIN" >&2; exit 1; }

    if [[ "${WOTS_E2E_POSTGRES:-0}" == 1 ]]; then
        WOTS_E2E_POSTGRES=0 WOTS_E2E_SKIP_BUILD=1 bash "$script" || exit 1
        echo "==> $label on PostgreSQL" >&2
        exec bash "$ROOT/scripts/with-postgres.sh" env WOTS_E2E_POSTGRES=0 WOTS_E2E_SKIP_BUILD=1 \
            bash -c 'WOTS_E2E_DATABASE="$WOTS_TEST_POSTGRES_URL" exec bash "$0"' "$script"
    fi
}
