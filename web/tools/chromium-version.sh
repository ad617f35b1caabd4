#!/usr/bin/env bash
# Prints the Debian version of package $1 (chromium, chromium-common, chromium-driver, chromium-headless-shell) to
# install: the pinned one when the archive still offers it, else the newest offered build of the same major version,
# else the newest offered (with a warning). Debian's security archive keeps only its latest Chromium build, so an
# exact pin stops resolving on the day a point release lands; the major version is what the tests were checked on.
set -euo pipefail

PINNED_CHROMIUM_VERSION='156.0.8078.114-1~deb12u1'   # Debian bookworm-security

package="$1"
offered=$(apt-cache madison "$package" | awk -F'|' '{gsub(/ /, "", $2); print $2}')
if [ -z "$offered" ]; then
    echo "chromium-version.sh: apt offers no $package (run apt-get update first)" >&2
    exit 1
fi
if grep -qxF "$PINNED_CHROMIUM_VERSION" <<<"$offered"; then
    echo "$PINNED_CHROMIUM_VERSION"
    exit 0
fi
major="${PINNED_CHROMIUM_VERSION%%.*}"
same_major=$(grep "^${major}\." <<<"$offered" | sort -V | tail -n 1 || true)
if [ -n "$same_major" ]; then
    echo "$same_major"
    exit 0
fi
newest=$(sort -V <<<"$offered" | tail -n 1)
echo "chromium-version.sh: no $package $major.x offered; installing $newest, which the browser tests were not checked on" >&2
echo "$newest"
