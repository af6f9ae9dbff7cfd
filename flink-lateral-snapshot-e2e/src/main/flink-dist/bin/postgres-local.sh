#!/usr/bin/env bash
################################################################################
#  Licensed under the Apache License, Version 2.0 (the "License");
#  you may not use this file except in compliance with the License.
#  You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
#  Unless required by applicable law or agreed to in writing, software
#  distributed under the License is distributed on an "AS IS" BASIS,
#  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
#  See the License for the specific language governing permissions and
#  limitations under the License.
################################################################################

# Usage: postgres-local.sh start|stop|psql [<psql argument> ...]
# A local PostgreSQL server for the CDC tutorial and the end-to-end tests, run from the server
# binaries of the machine's PostgreSQL packages (Debian's 'postgresql': /usr/lib/postgresql/<n>/bin)
# with logical decoding on (wal_level = logical), so that Debezium can read its changes through
# the 'pgoutput' plugin. 'start' creates its data directory at the first start (superuser
# 'postgres', trusted on localhost only), starts the server and waits until it accepts
# connections; 'stop' stops it by the PID in its postmaster.pid (a fast shutdown: open
# transactions are rolled back, replication slots stay); 'psql' runs psql against it as the
# superuser, with ON_ERROR_STOP, the statements on standard input unless given with -c or -f.
#
# The server refuses to run as root. Run as root, the script runs the server as the operating
# system user POSTGRES_OS_USER (default 'postgres', which Debian's package creates) and gives it
# the directory; run as any other user, it runs the server as that user.
#
# Honours POSTGRES_LOCAL_DIR (default: /tmp/flink-lateral-snapshot/postgres), which holds data/,
# the server's log and its socket; POSTGRES_PORT (default 5432), which takes effect when the data
# directory is created; POSTGRES_BIN, a directory with initdb, pg_ctl and postgres (default: the
# newest under /usr/lib/postgresql, else the PATH).
set -euo pipefail

POSTGRES_LOCAL_DIR=${POSTGRES_LOCAL_DIR:-/tmp/flink-lateral-snapshot/postgres}
data=$POSTGRES_LOCAL_DIR/data
log=$POSTGRES_LOCAL_DIR/postgres.log

find_bin() {
    if [[ -n "${POSTGRES_BIN:-}" ]]; then
        echo "$POSTGRES_BIN"
        return
    fi
    local newest
    newest=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null |
        sort -V | tail -n 1)
    if [[ -n "$newest" ]]; then
        dirname "$newest"
    elif command -v initdb > /dev/null; then
        dirname "$(command -v initdb)"
    else
        echo "No PostgreSQL server binaries (initdb, pg_ctl, postgres): install Debian's" \
            "'postgresql' package, or set POSTGRES_BIN." >&2
        exit 1
    fi
}

# Runs a command as the user the server runs as.
as_server_user() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u "${POSTGRES_OS_USER:-postgres}" -- "$@"
    else
        "$@"
    fi
}

port() {
    sed -n "s/^port = \([0-9]*\)$/\1/p" "$data/postgresql.auto.conf" 2>/dev/null | tail -n 1
}

server_pid() {
    [[ -f "$data/postmaster.pid" ]] && head -n 1 "$data/postmaster.pid"
}

is_running() {
    local pid
    pid=$(server_pid) || return 1
    ps -p "$pid" -o args= 2>/dev/null | grep -qF -- "-D $data"
}

init() {
    local bin=$1 port=${POSTGRES_PORT:-5432}
    mkdir -p "$POSTGRES_LOCAL_DIR"
    if [[ $(id -u) -eq 0 ]]; then
        chown "${POSTGRES_OS_USER:-postgres}" "$POSTGRES_LOCAL_DIR"
    fi
    as_server_user "$bin/initdb" --pgdata="$data" --username=postgres --auth=trust \
        --encoding=UTF8 --locale=C --no-sync > "$POSTGRES_LOCAL_DIR/initdb.out"
    # postgresql.auto.conf is read after postgresql.conf and overrides it, as ALTER SYSTEM does.
    as_server_user tee -a "$data/postgresql.auto.conf" > /dev/null <<CONF
# Written by postgres-local.sh: on localhost only, with logical decoding for Debezium.
listen_addresses = 'localhost'
port = $port
unix_socket_directories = '$POSTGRES_LOCAL_DIR'
wal_level = logical
max_wal_senders = 4
max_replication_slots = 4
CONF
}

start() {
    if is_running; then
        echo "PostgreSQL is already running (PID $(server_pid))." >&2
        exit 1
    fi
    local bin
    bin=$(find_bin)
    [[ -f "$data/PG_VERSION" ]] || init "$bin"
    # -w: pg_ctl returns once the server accepts connections, or fails after -t seconds.
    if ! as_server_user "$bin/pg_ctl" --pgdata="$data" --log="$log" -w -t 60 start \
        > "$POSTGRES_LOCAL_DIR/pg_ctl.out" 2>&1; then
        echo "PostgreSQL did not start; its log is $log:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    echo "Started PostgreSQL (PID $(server_pid)) on localhost:$(port), log in $log"
}

stop() {
    if ! is_running; then
        echo "No PostgreSQL to stop."
        return 0
    fi
    local pid
    pid=$(server_pid)
    # SIGINT is PostgreSQL's fast shutdown.
    kill -INT "$pid"
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid"
    fi
    echo "Stopped PostgreSQL (PID $pid)."
}

run_psql() {
    if ! is_running; then
        echo "PostgreSQL is not running; start it with $0 start." >&2
        exit 1
    fi
    local client
    client=$(find_bin)/psql
    [[ -x "$client" ]] || client=psql
    "$client" --host=localhost --port="$(port)" --username=postgres --dbname=postgres \
        --no-psqlrc --quiet --set=ON_ERROR_STOP=1 "$@"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    psql)
        shift
        run_psql "$@"
        ;;
    *)
        echo "Usage: $0 start|stop|psql [<psql argument> ...]" >&2
        exit 1
        ;;
esac
