#!/usr/bin/env bash
# Installs the pinned ESLint from Debian's archive (the npm registry is not reachable from our machines).
# Debian's package puts its modules in /usr/share/nodejs; tools/test.sh runs it with NODE_PATH set to that.
set -euo pipefail

ESLINT_VERSION='6.4.0~dfsg+~6.1.9-7'   # Debian bookworm; parses ES2022 through its espree 9

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "eslint=${ESLINT_VERSION}"
NODE_PATH=/usr/share/nodejs eslint --version
