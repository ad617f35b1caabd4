#!/usr/bin/env bash
# `make test`: builds everything, runs every Swift test with a throwaway PostgreSQL server, then the checks that
# live outside Swift (the independent envelope-vector check, the OpenAPI check, the end-to-end scenarios).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "build (debug, with tests)"
swift build --build-tests

step "swift tests (in-memory, SQLite, PostgreSQL, relay, client)"
bash scripts/with-postgres.sh swift test --skip-build

step "independent envelope check (Python cryptography, SECURITY.md only)"
python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install --quiet cryptography
python3 scripts/check_envelope_vector.py

step "independent checkpoint and Merkle proof check (Python cryptography, C2SP and RFC 9162 only)"
python3 scripts/check_signed_note.py

step "live relay against schema/openapi.yaml (schemathesis; any 5xx fails)"
bash scripts/openapi-check.sh

if [ -f scripts/e2e.sh ]; then
  step "end to end: wots and wots-relay binaries on SQLite and PostgreSQL"
  WOTS_E2E_POSTGRES=1 bash scripts/e2e.sh
fi
