#!/usr/bin/env bash
# Installs what the browser tests (web/testing/browser_e2e.py) need, when missing: Debian's chromium and
# chromium-driver (pinned by web/tools/chromium-version.sh, bookworm-security), zbarimg (zbar-tools, pinned: reads the safety number's QR code back)
# and Python Selenium (pinned). Idempotent.
set -euo pipefail

SELENIUM_VERSION='4.51.0'   # 4.52.0 needs a certifi newer than the index has
ZBAR_VERSION='0.23.92-7+deb12u1'

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
if ! command -v chromium >/dev/null || ! [ -x /usr/bin/chromedriver ]; then
    $SUDO apt-get update -qq
    tools=$(dirname "$0")
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "chromium=$(bash "$tools/chromium-version.sh" chromium)" \
        "chromium-common=$(bash "$tools/chromium-version.sh" chromium-common)" \
        "chromium-driver=$(bash "$tools/chromium-version.sh" chromium-driver)"
fi
if ! command -v zbarimg >/dev/null; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "zbar-tools=${ZBAR_VERSION}"
fi
if ! python3 -c "import selenium, sys; sys.exit(selenium.__version__ != '${SELENIUM_VERSION}')" 2>/dev/null; then
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet "selenium==${SELENIUM_VERSION}"
fi
chromium --version
