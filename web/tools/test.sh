#!/usr/bin/env bash
# Lint, then every test of the web client's crypto core, with Node's built-in test runner.
#
#   bash web/tools/test.sh
#
# Environment: WOTS_SKIP_SLOW_TESTS=1 skips the RFC 7914 N = 2^20 vector (1 GiB, ~12 s);
# WOTS_REQUIRE_ESLINT=1 fails instead of warning when the pinned ESLint is not installed (tools/install-lint.sh).
set -euo pipefail

web="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$web"

echo "== lint: node --check and house rules (tools/lint.mjs)"
node tools/lint.mjs

echo "== lint: ESLint (.eslintrc.json; js/vendor/ is a Debian package's file, kept unchanged)"
# -f unix: the default formatter needs node-chalk, which Debian's eslint only recommends (install-lint.sh skips it).
if command -v eslint >/dev/null 2>&1; then
    NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} eslint --no-eslintrc -c .eslintrc.json --ext .js,.mjs --ignore-pattern js/vendor/ -f unix js test testing tools
    echo "eslint: no problems"
elif [ "${WOTS_REQUIRE_ESLINT:-0}" = 1 ]; then
    echo "eslint is not installed; run web/tools/install-lint.sh" >&2
    exit 1
else
    echo "eslint is not installed, skipped (web/tools/install-lint.sh installs the pinned version)"
fi

echo "== tests: node --test web/test/"
node --test test/
