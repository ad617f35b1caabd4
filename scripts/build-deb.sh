#!/usr/bin/env bash
# Builds the wots .deb: wots and wots-relay with the relay's migrations (SwiftPM resource bundles, looked up beside the
# real executable, so they live in /usr/lib/wots and /usr/bin holds symlinks), man pages from swift-argument-parser's
# generate-manual plugin, bash/zsh/fish completions, the hardened systemd unit, /etc/wots/relay.env (a conffile) and
# the maintainer scripts in deploy/debian. Depends is computed by dpkg-shlibdeps from the binaries themselves.
#
#   scripts/build-deb.sh [--configuration release|debug] [--scratch-path DIR] [--output DIR]
#
# release (what `make deb` ships): optimised, the Swift runtime linked statically, so the package depends on Debian
# libraries only. debug (what `make test` checks, reusing the binaries it already built): links the toolchain's
# Swift runtime in /opt/swift, which no Debian package provides; Depends then lists the Debian libraries only and the
# package runs only where that toolchain is installed. Never ship a debug package.
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=release
scratch=.build
output=.build-deb
while [ $# -gt 0 ]; do
    case "$1" in
        --configuration) configuration=$2; shift 2 ;;
        --scratch-path) scratch=$2; shift 2 ;;
        --output) output=$2; shift 2 ;;
        *) echo "build-deb.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done
case "$configuration" in
    release) link_flags=(--static-swift-stdlib); compression=(-Zxz) ;;
    debug) link_flags=(); compression=(-Zgzip -z1) ;;
    *) echo "build-deb.sh: --configuration is release or debug, not $configuration" >&2; exit 64 ;;
esac

missing=()
for tool in dpkg-deb dpkg-shlibdeps gzip; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends dpkg-dev gzip
fi

swift_build() { swift build -c "$configuration" --scratch-path "$scratch" "$@"; }
architecture=$(dpkg --print-architecture)
commit_date=$(git log -1 --format=%cs)
version=${WOTS_VERSION:-0.1.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=10 HEAD)}
output=$(mkdir -p "$output" && cd "$output" && pwd)
rm -f "$output"/wots_*.deb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
manuals=$work/man

# The plugin builds both executables in $configuration and runs each with --experimental-dump-help; it needs no
# network once the dependencies are resolved. It links them without --static-swift-stdlib, so the build below comes
# after it and relinks what is packaged.
mkdir -p "$manuals"
swift package --scratch-path "$scratch" --disable-sandbox --allow-writing-to-directory "$manuals" \
    generate-manual --configuration "$configuration" --multi-page --date "$commit_date" \
    --authors "The Wots project" --output-directory "$manuals"
swift_build "${link_flags[@]}" --product wots
swift_build "${link_flags[@]}" --product wots-relay
bin=$(swift_build --show-bin-path)

install -d "$root/usr/lib/wots" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/wots" \
    "$root/lib/systemd/system" "$root/etc/wots" "$root/DEBIAN" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
for executable in wots wots-relay; do
    install -m 0755 "$bin/$executable" "$root/usr/lib/wots/"
    ln -s "../lib/wots/$executable" "$root/usr/bin/$executable"
    "$bin/$executable" --generate-completion-script bash >"$root/usr/share/bash-completion/completions/$executable"
    "$bin/$executable" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$executable"
    "$bin/$executable" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$executable.fish"
done
for bundle in wots_WotsStorageSQLite.resources wots_WotsStoragePostgres.resources; do
    cp -R "$bin/$bundle" "$root/usr/lib/wots/"
done
for page in "$manuals"/*.1; do
    gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"
done
# generate-manual names subcommand pages wots-relay.serve.1; man(1) looks for wots-relay-serve.
for page in "$root"/usr/share/man/man1/*.*.1.gz; do
    [ -e "$page" ] || continue
    name=$(basename "$page" .1.gz)
    ln -s "$(basename "$page")" "$root/usr/share/man/man1/${name//./-}.1.gz"
done
bash web/tools/install-web.sh "$root/usr/share/wots/web"
install -m 0644 deploy/wots-relay.service "$root/lib/systemd/system/"
install -m 0640 deploy/relay.env "$root/etc/wots/relay.env"
install -m 0644 README.md SECURITY.md docs/OPERATIONS.md CHANGELOG.md "$root/usr/share/doc/wots/"
install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$root/DEBIAN/"
echo /etc/wots/relay.env >"$root/DEBIAN/conffiles"

# dpkg-shlibdeps wants a source package's debian/control to read; it only needs the stanza names.
mkdir -p "$work/src/debian"
printf 'Source: wots\n\nPackage: wots\nArchitecture: any\n' >"$work/src/debian/control"
shlibdeps_flags=()
if [ "$configuration" = debug ]; then shlibdeps_flags+=(--ignore-missing-info); fi
depends=$(cd "$work/src" && dpkg-shlibdeps -O "${shlibdeps_flags[@]}" \
    "$root/usr/lib/wots/wots" "$root/usr/lib/wots/wots-relay" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')
cp "$work/shlibdeps.log" "$output/dpkg-shlibdeps.log"
[ -n "$depends" ] || { cat "$work/shlibdeps.log" >&2; echo "build-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
echo "Depends: $depends, adduser ($(grep -c warning "$work/shlibdeps.log" || true) dpkg-shlibdeps warnings in $output/dpkg-shlibdeps.log)" >&2

installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: wots
Version: $version
Architecture: $architecture
Maintainer: The Wots project <wots@localhost>
Installed-Size: $installed_size
Depends: $depends, adduser
Section: net
Priority: optional
Homepage: https://github.com/wots/wots
Description: end-to-end encrypted messaging relay and command-line client
 wots-relay keeps a public directory and store-and-forward mailboxes of sealed
 envelopes it cannot read; wots is the client. The package runs the relay as
 the wots user under a hardened systemd unit (wots-relay.service), configured
 in /etc/wots/relay.env.
CONTROL

package=$output/wots_${version}_${architecture}.deb
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$package" >/dev/null
echo "$package"
