# Wots — every command a developer or operator needs. See README.md.
SWIFT ?= swift
DATABASE ?= sqlite:./wots-data/relay.sqlite
PREFIX ?= /usr/local
SCRATCH ?= .build
FORMAT_PATHS = Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Sources Fuzz/Package.swift Fuzz/Sources
FUZZ_SECONDS ?= 60

.PHONY: run build install deb test fuzz bench bench-crypto bench-storage bench-relay bench-groups profile-relay bench-attachments bench-log demo format lint clean

## Start the relay on the embedded SQLite default (./wots-data/relay.sqlite) at http://127.0.0.1:8080.
run:
	$(SWIFT) build --product wots-relay
	$$($(SWIFT) build --show-bin-path)/wots-relay serve --database $(DATABASE)

build:
	$(SWIFT) build

## Release build, then wots and wots-relay into $(PREFIX)/bin (default /usr/local; PREFIX=~/.local for one user),
## with the relay's migrations (SwiftPM resource bundles, looked up beside the executable), the browser client in
## $(PREFIX)/share/wots/web (found as ../share/wots/web from the relay executable), man pages (the
## generate-manual plugin of swift-argument-parser) in $(PREFIX)/share/man/man1 and bash, zsh and fish completions.
install:
	man=$$(mktemp -d) && \
	$(SWIFT) package --scratch-path $(SCRATCH) --disable-sandbox --allow-writing-to-directory "$$man" \
		generate-manual --configuration release --multi-page --output-directory "$$man" && \
	install -d "$(DESTDIR)$(PREFIX)/share/man/man1" && install -m 0644 "$$man"/*.1 "$(DESTDIR)$(PREFIX)/share/man/man1/" && \
	rm -rf "$$man"
	$(SWIFT) build -c release --scratch-path $(SCRATCH) --product wots
	$(SWIFT) build -c release --scratch-path $(SCRATCH) --product wots-relay
	bin=$$($(SWIFT) build -c release --scratch-path $(SCRATCH) --show-bin-path) && \
	install -d "$(DESTDIR)$(PREFIX)/bin" && \
	install -m 0755 "$$bin/wots" "$$bin/wots-relay" "$(DESTDIR)$(PREFIX)/bin/" && \
	for bundle in wots_WotsStorageSQLite.resources wots_WotsStoragePostgres.resources; do \
		rm -rf "$(DESTDIR)$(PREFIX)/bin/$$bundle" && cp -R "$$bin/$$bundle" "$(DESTDIR)$(PREFIX)/bin/" || exit 1; \
	done && \
	bash web/tools/install-web.sh "$(DESTDIR)$(PREFIX)/share/wots/web" && \
	install -d "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d" && \
	for tool in wots wots-relay; do \
		"$$bin/$$tool" --generate-completion-script bash >"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$tool" && \
		"$$bin/$$tool" --generate-completion-script zsh >"$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$tool" && \
		"$$bin/$$tool" --generate-completion-script fish >"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$tool.fish" \
		|| exit 1; \
	done

## The Debian package (release, Swift runtime linked statically): .build-deb/wots_VERSION_ARCH.deb, with the binaries,
## man pages, completions, deploy/wots-relay.service and /etc/wots/relay.env. Needs dpkg-dev. See docs/OPERATIONS.md.
deb:
	bash scripts/build-deb.sh --configuration release --scratch-path $(SCRATCH) --output .build-deb

## Build and run every test: unit, contract (in-memory, SQLite, a throwaway PostgreSQL), relay, end to end.
test:
	bash scripts/test.sh

## libFuzzer on every decoder that reads outside input, FUZZ_SECONDS each (default 60; FUZZ_SECONDS=3600 for a long
## run). Crashes are saved in Fuzz/crashes/ and fail the run. See Fuzz/Package.swift.
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

## Every benchmark, each bounded in time; results in docs/BENCHMARKS.md.
bench:
	bash scripts/bench.sh

bench-crypto:
	bash scripts/bench-crypto.sh

bench-storage:
	bash scripts/bench-storage.sh

## Key transparency at 1,000,000 leaves: proof generation and verification, and the log's cost per registration.
bench-log:
	bash scripts/bench-log.sh

## The relay under load beside Prosody, on SQLite and PostgreSQL, and the idle-connection ceiling.
bench-relay:
	bash scripts/bench-relay.sh

## Group messages of 10, 100 and 256 members beside 1:1: sealing cost, accepted msg/s, delivered slots/s, relay CPU.
bench-groups:
	bash scripts/bench-groups.sh

## perf profile of the relay delivering online: CPU-µs and system calls per message, top shared objects and symbols.
profile-relay:
	bash scripts/profile-relay.sh

## Attachment throughput (encrypt+upload, download+decrypt) beside openssl speed aes-256-gcm.
bench-attachments:
	bash scripts/bench-attachments.sh

## Two users, a relay on a temporary SQLite file, a message each way.
demo:
	bash scripts/demo.sh

format:
	$(SWIFT) format --in-place --recursive $(FORMAT_PATHS)

lint:
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)

clean:
	rm -rf .build .build-* Benchmarks/.build wots-data
