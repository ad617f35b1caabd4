#!/usr/bin/env bash
# Installs the pinned headless Chromium from Debian's archive, for web/test/chromium.test.mjs (which skips, saying
# so, when no Chromium is installed).
set -euo pipefail

CHROMIUM_VERSION='156.0.8078.108-1~deb12u1'   # Debian bookworm-security

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "chromium-headless-shell=${CHROMIUM_VERSION}"
chromium-headless-shell --version
