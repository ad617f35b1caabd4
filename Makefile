# Wots — every command a developer or operator needs. See README.md.
SWIFT ?= swift
DATABASE ?= sqlite:./wots-data/relay.sqlite
PREFIX ?= /usr/local
FORMAT_PATHS = Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Sources Fuzz/Package.swift Fuzz/Sources
FUZZ_SECONDS ?= 60

.PHONY: run build install test fuzz bench bench-crypto bench-storage bench-relay demo format lint clean

## Start the relay on the embedded SQLite default (./wots-data/relay.sqlite) at http://127.0.0.1:8080.
run:
	$(SWIFT) build --product wots-relay
	$$($(SWIFT) build --show-bin-path)/wots-relay serve --database $(DATABASE)

build:
	$(SWIFT) build

## Release build, then wots and wots-relay into $(PREFIX)/bin (default /usr/local; PREFIX=~/.local for one user),
## with the relay's migrations (SwiftPM resource bundles, looked up beside the executable).
install:
	$(SWIFT) build -c release --product wots
	$(SWIFT) build -c release --product wots-relay
	bin=$$($(SWIFT) build -c release --show-bin-path) && \
	install -d "$(DESTDIR)$(PREFIX)/bin" && \
	install -m 0755 "$$bin/wots" "$$bin/wots-relay" "$(DESTDIR)$(PREFIX)/bin/" && \
	for bundle in wots_WotsStorageSQLite.resources wots_WotsStoragePostgres.resources; do \
		rm -rf "$(DESTDIR)$(PREFIX)/bin/$$bundle" && cp -R "$$bin/$$bundle" "$(DESTDIR)$(PREFIX)/bin/" || exit 1; \
	done

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

## The relay under load beside Prosody, on SQLite and PostgreSQL, and the idle-connection ceiling.
bench-relay:
	bash scripts/bench-relay.sh

## Two users, a relay on a temporary SQLite file, a message each way.
demo:
	bash scripts/demo.sh

format:
	$(SWIFT) format --in-place --recursive $(FORMAT_PATHS)

lint:
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)

clean:
	rm -rf .build .build-* Benchmarks/.build wots-data
