#!/usr/bin/env bash
# Copies the files the relay serves (index.html, css/, js/, img/; see Sources/WotsRelay/WebClient.swift) into DEST,
# for `make install` (PREFIX/share/wots/web) and the .deb (/usr/share/wots/web). Tests and tools stay behind.
set -euo pipefail
dest=${1:?usage: install-web.sh DEST}
web=$(cd "$(dirname "$0")/.." && pwd)
install -d "$dest"
install -m 0644 "$web/index.html" "$dest/"
for folder in css js img; do
    [ -d "$web/$folder" ] || continue
    (cd "$web" && find "$folder" -type f ! -name '.*' -print0) | while IFS= read -r -d '' file; do
        install -D -m 0644 "$web/$file" "$dest/$file"
    done
done
