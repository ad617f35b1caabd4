#!/usr/bin/env bash
# Runs COMMAND with a throwaway PostgreSQL server on a free loopback port, then stops the server and deletes it.
#
#   scripts/with-postgres.sh swift test --filter Postgres
#
# The command sees WOTS_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/wots_test (trust authentication; the
# postgres role may create and drop databases). The script exits with the command's status. It installs Debian's
# PostgreSQL 15 when missing, and works as root (the server then runs as the postgres user, since PostgreSQL refuses
# to run as root) or as an ordinary user.
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGUMENT...]" >&2
    exit 64
fi

PG_BIN=${WOTS_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}

if [ ! -x "$PG_BIN/initdb" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "with-postgres: $PG_BIN/initdb is missing; install PostgreSQL 15 (apt-get install postgresql) as root" >&2
        exit 69
    fi
    echo "with-postgres: installing PostgreSQL (apt-get install postgresql)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
fi

# As root, everything that touches the data directory runs as postgres.
if [ "$(id -u)" -eq 0 ]; then
    as_postgres() { runuser -u postgres -- "$@"; }
else
    as_postgres() { "$@"; }
fi

PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/wots-pg.XXXXXX")
PG_DATA="$PG_DIR/data"
PG_LOG="$PG_DIR/log"
started=no

cleanup() {
    if [ "$started" = yes ]; then
        as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$PG_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$PG_DIR"
fi
chmod 700 "$PG_DIR"

if ! as_postgres "$PG_BIN/initdb" -D "$PG_DATA" --auth=trust --username=postgres --encoding=UTF8 --no-sync \
    >"$PG_DIR/initdb.log" 2>&1; then
    cat "$PG_DIR/initdb.log" >&2
    echo "with-postgres: initdb failed" >&2
    exit 70
fi

port_is_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port that is free now may be taken before the server binds it, so a failed start tries another port.
for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    port_is_free "$port" || continue
    if as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DIR -c fsync=on -c max_connections=300" start >/dev/null; then
        started=yes
        break
    fi
done

if [ "$started" != yes ]; then
    kept_log="${TMPDIR:-/tmp}/wots-postgres-failed-$$.log"
    cp "$PG_LOG" "$kept_log" 2>/dev/null || true
    echo "with-postgres: PostgreSQL did not start; its log is $kept_log (last lines follow)" >&2
    tail -n 20 "$kept_log" >&2 2>/dev/null || true
    exit 70
fi

as_postgres "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres wots_test

export WOTS_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/wots_test"
echo "with-postgres: PostgreSQL on 127.0.0.1:$port (log $PG_LOG)" >&2

# In the background, so a TERM or INT (from `timeout`, CI, Ctrl-C) is passed on at once instead of waiting for the
# command to end; `<&0` keeps its standard input.
"$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM
trap 'kill -INT "$child" 2>/dev/null; wait "$child"; exit 130' INT
set +e
wait "$child"
status=$?
set -e
exit "$status"
