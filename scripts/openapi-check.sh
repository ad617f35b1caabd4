#!/usr/bin/env bash
# Checks the live relay against schema/openapi.yaml with schemathesis: every response must be documented, match its
# schema, and no generated input may provoke a 5xx. Starts a relay on a temporary SQLite file; stops it after.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned: schemathesis' checks and flags change between releases, and what make test checks should not.
SCHEMATHESIS_VERSION=4.32.5
if [ "$(st --version 2>/dev/null)" != "st, version $SCHEMATHESIS_VERSION" ]; then
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi
BIN=$(swift build --show-bin-path)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wots-openapi.XXXXXX")
cleanup() { [ -n "${RELAY_PID:-}" ] && kill "$RELAY_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

"$BIN/wots-relay" serve --port 0 --database "sqlite:$WORK/relay.sqlite" --send-rate 100000 \
    --registrations-per-minute 1000000 --log-level warning >"$WORK/out" 2>"$WORK/log" &
RELAY_PID=$!
for _ in $(seq 1 100); do
    PORT=$(sed -n 's/.*listening on http:\/\/[0-9.]*:\([0-9]*\).*/\1/p' "$WORK/out")
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "${PORT:-}" ] || { echo "openapi-check: relay did not start"; cat "$WORK/log"; exit 1; }
URL="http://127.0.0.1:$PORT"
SESSION=$(python3 scripts/openapi_session.py "$URL")

st --config-file schema/schemathesis.toml run schema/openapi.yaml --url "$URL" -H "Authorization: Bearer $SESSION" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples "${OPENAPI_MAX_EXAMPLES:-25}" --seed 1 --no-color
if grep -q ' error ' "$WORK/log"; then
    echo "openapi-check: the relay logged errors:"; grep ' error ' "$WORK/log"; exit 1
fi
