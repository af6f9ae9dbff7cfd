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

# Usage: connect-local.sh start|stop|add-connector <json file>|status <connector>
# A local Apache Kafka Connect worker in distributed mode (a group of one) for the CDC tutorial and
# the end-to-end tests, run from the jars in connect/libs/, with Debezium's PostgreSQL connector
# as a plugin in connect/plugins/. It keeps its connectors, their offsets and their status in
# topics of the Kafka node (connect-configs, connect-offsets, connect-status), so a worker started
# again, after a stop or a crash, resumes its connectors where their last committed offsets are.
# 'start' writes its configuration at the first start, starts it in the background and waits
# until its REST API answers; 'stop' stops it by the PID that 'start' wrote; 'add-connector' posts
# a connector's JSON ({"name": ..., "config": {...}}) to the worker; 'status' prints the state of
# a connector and its tasks.
#
# Converters: JSON without schemas for keys and values, the form Flink's 'debezium-json' format
# reads by default. Exactly-once support for source connectors is on: a connector that asks for it
# ("exactly.once.support": "required", as Debezium's PostgreSQL connector can) writes its records
# and its offsets in one Kafka transaction, so that a worker that crashed sends nothing twice to
# consumers that read with isolation.level = read_committed.
#
# Honours CONNECT_LOCAL_DIR (default: /tmp/flink-lateral-snapshot/connect), which holds the
# worker's worker.properties, log/ and PID file; KAFKA_BOOTSTRAP_SERVERS (default localhost:9092)
# and CONNECT_PORT (default 8084, its REST API; 8083 is the SQL Gateway's), which take effect when
# worker.properties is written; CONNECT_HEAP_OPTS (default -Xms256m -Xmx512m).
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

CONNECT_HOME=$FLINK_HOME/connect
CONNECT_LOCAL_DIR=${CONNECT_LOCAL_DIR:-/tmp/flink-lateral-snapshot/connect}
CONNECT_MAIN_CLASS=org.apache.kafka.connect.cli.ConnectDistributed
config=$CONNECT_LOCAL_DIR/worker.properties
pid_file=$CONNECT_LOCAL_DIR/connect.pid
log_dir=$CONNECT_LOCAL_DIR/log

write_config() {
    local servers=${KAFKA_BOOTSTRAP_SERVERS:-localhost:9092} port=${CONNECT_PORT:-8084}
    cat > "$config" <<PROPERTIES
# Written by connect-local.sh: one distributed worker, its REST API on localhost only.
bootstrap.servers=$servers
group.id=flink-lateral-snapshot-connect
listeners=http://localhost:$port
rest.advertised.host.name=localhost
rest.advertised.port=$port
plugin.path=$CONNECT_HOME/plugins
# Find plugins by their service manifests (Debezium's and Kafka's own jars have them) instead of
# scanning every class of every jar, which takes the worker tens of seconds at each start.
plugin.discovery=service_load
key.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=false
value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=false
# The worker's own topics, with one replica on one node; one partition each is plenty locally.
config.storage.topic=connect-configs
config.storage.replication.factor=1
offset.storage.topic=connect-offsets
offset.storage.replication.factor=1
offset.storage.partitions=1
status.storage.topic=connect-status
status.storage.replication.factor=1
status.storage.partitions=1
exactly.once.source.support=enabled
# A worker that left the group (a crash, a restart) gets its connectors back when it joins again;
# the default keeps them unassigned for up to 5 minutes, waiting for the worker that left, which
# only makes sense in a group of several.
scheduled.rebalance.max.delay.ms=0
# How often the worker commits the offsets of what its connectors wrote (default 60 s): what a
# crashed worker sends again when it is started again, for a connector without exactly-once
# support. With it, the worker commits records and offsets together for every batch the connector
# hands it.
offset.flush.interval.ms=5000
PROPERTIES
}

is_running() {
    [[ -f "$pid_file" ]] &&
        ps -p "$(cat "$pid_file")" -o args= 2>/dev/null | grep -qF -- "$CONNECT_MAIN_CLASS $config"
}

rest_url() {
    echo "http://localhost:$(sed -n 's/^rest.advertised.port=//p' "$config")"
}

start() {
    if is_running; then
        echo "Kafka Connect is already running (PID $(cat "$pid_file"))." >&2
        exit 1
    fi
    mkdir -p "$CONNECT_LOCAL_DIR" "$log_dir"
    [[ -f "$config" ]] || write_config
    # shellcheck disable=SC2086 # the heap options are a list of words
    nohup "$JAVA" ${CONNECT_HEAP_OPTS:--Xms256m -Xmx512m} -Dconnect.logs.dir="$log_dir" \
        -Dlog4j2.configurationFile="file:$CONNECT_HOME/config/log4j2.properties" \
        -cp "$CONNECT_HOME/libs/*" "$CONNECT_MAIN_CLASS" "$config" \
        > "$log_dir/connect.out" 2>&1 < /dev/null &
    echo $! > "$pid_file"
    local port
    port=$(sed -n 's/^rest.advertised.port=//p' "$config")
    for _ in $(seq 1 1200); do
        if ! is_running; then
            echo "Kafka Connect exited during the start; its log is in $log_dir:" >&2
            tail -n 20 "$log_dir/connect.out" >&2
            exit 1
        fi
        if (: < "/dev/tcp/localhost/$port") 2>/dev/null; then
            echo "Started Kafka Connect (PID $(cat "$pid_file")) with its REST API on" \
                "localhost:$port, log in $log_dir"
            return 0
        fi
        sleep 0.1
    done
    echo "Kafka Connect does not accept connections on localhost:$port after 120 s; log in" \
        "$log_dir" >&2
    exit 1
}

# Runs the worker's REST calls (dev.lateralsnapshot.connect.Connectors).
connectors() {
    if ! is_running; then
        echo "Kafka Connect is not running; start it with $0 start." >&2
        exit 1
    fi
    # A short run: the JIT's first tier and the serial collector start fastest.
    "$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$CONNECT_HOME/libs/*" \
        dev.lateralsnapshot.connect.Connectors "$(rest_url)" "$@"
}

stop() {
    if ! is_running; then
        echo "No Kafka Connect to stop."
        rm -f "$pid_file"
        return 0
    fi
    local pid
    pid=$(cat "$pid_file")
    # The worker leaves its group and stops its connectors' tasks first.
    flink_kill_and_wait "$pid" 30
    rm -f "$pid_file"
    echo "Stopped Kafka Connect (PID $pid)."
}

usage="Usage: $0 start|stop|add-connector <json file>|status <connector>"
case "${1:-}" in
    start) start ;;
    stop) stop ;;
    add-connector)
        [[ $# -eq 2 ]] || { echo "$usage" >&2; exit 1; }
        connectors add "$2"
        ;;
    status)
        [[ $# -eq 2 ]] || { echo "$usage" >&2; exit 1; }
        connectors status "$2"
        ;;
    *)
        echo "$usage" >&2
        exit 1
        ;;
esac
