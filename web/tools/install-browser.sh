#!/usr/bin/env bash
# Installs the pinned (web/tools/chromium-version.sh) headless Chromium from Debian's archive, for web/test/chromium.test.mjs (which skips, saying
# so, when no Chromium is installed).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "chromium-headless-shell=$(bash "$(dirname "$0")/chromium-version.sh" chromium-headless-shell)"
chromium-headless-shell --version
