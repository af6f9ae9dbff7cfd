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

# Usage: kafka-local.sh start|stop|create-topic <topic> [<partitions>] [<key>=<value> ...]
# A local Apache Kafka node in KRaft mode (broker and controller in one JVM, no ZooKeeper) for the
# Kafka tutorial and the end-to-end tests, run from the jars in kafka/libs/. 'start' writes its
# configuration at the first start, formats its data directory, starts it in the background and
# waits until it accepts connections; 'stop' stops it by the PID that 'start' wrote;
# 'create-topic' creates a topic on it with Kafka's admin client, with one replica, one partition
# unless given, and the given topic configuration (for example cleanup.policy=compact).
#
# Honours KAFKA_LOCAL_DIR (default: /tmp/flink-lateral-snapshot/kafka), which holds the node's
# server.properties, data/, log/ and PID file; KAFKA_PORT (default 9092) and
# KAFKA_CONTROLLER_PORT (default 9093), which take effect when server.properties is written;
# KAFKA_HEAP_OPTS (default -Xms512m -Xmx512m).
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

KAFKA_HOME=$FLINK_HOME/kafka
KAFKA_LOCAL_DIR=${KAFKA_LOCAL_DIR:-/tmp/flink-lateral-snapshot/kafka}
KAFKA_MAIN_CLASS=kafka.Kafka
config=$KAFKA_LOCAL_DIR/server.properties
pid_file=$KAFKA_LOCAL_DIR/kafka.pid
log_dir=$KAFKA_LOCAL_DIR/log

# The JVM of Kafka's main classes, before the main class.
# shellcheck disable=SC2206 # the heap options are a list of words
kafka_jvm=("$JAVA" ${KAFKA_HEAP_OPTS:--Xms512m -Xmx512m} -Dkafka.logs.dir="$log_dir"
    -Dlog4j2.configurationFile="file:$KAFKA_HOME/config/log4j2.properties"
    -cp "$KAFKA_HOME/libs/*")

write_config() {
    local port=${KAFKA_PORT:-9092} controller_port=${KAFKA_CONTROLLER_PORT:-9093}
    cat > "$config" <<PROPERTIES
# Written by kafka-local.sh: one node that is broker and KRaft controller, on localhost only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@localhost:$controller_port
listeners=PLAINTEXT://localhost:$port,CONTROLLER://localhost:$controller_port
advertised.listeners=PLAINTEXT://localhost:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_LOCAL_DIR/data
num.partitions=1
# One node, so every internal topic has one replica; one partition each is plenty locally.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# Records stay until the directory is removed, whatever their timestamps.
log.retention.ms=-1
PROPERTIES
}

is_running() {
    [[ -f "$pid_file" ]] &&
        ps -p "$(cat "$pid_file")" -o args= 2>/dev/null | grep -qF -- "$KAFKA_MAIN_CLASS $config"
}

start() {
    if is_running; then
        echo "Kafka is already running (PID $(cat "$pid_file"))." >&2
        exit 1
    fi
    mkdir -p "$KAFKA_LOCAL_DIR" "$log_dir"
    [[ -f "$config" ]] || write_config
    if [[ ! -f "$KAFKA_LOCAL_DIR/data/meta.properties" ]]; then
        "${kafka_jvm[@]}" kafka.tools.StorageTool format --config "$config" \
            --cluster-id "$("${kafka_jvm[@]}" kafka.tools.StorageTool random-uuid)" \
            > "$log_dir/format.out"
    fi
    nohup "${kafka_jvm[@]}" "$KAFKA_MAIN_CLASS" "$config" > "$log_dir/kafka.out" 2>&1 < /dev/null &
    echo $! > "$pid_file"
    local port
    port=$(sed -n 's/^listeners=PLAINTEXT:\/\/localhost:\([0-9]*\),.*/\1/p' "$config")
    for _ in $(seq 1 600); do
        if ! is_running; then
            echo "Kafka exited during the start; its log is in $log_dir:" >&2
            tail -n 20 "$log_dir/kafka.out" >&2
            exit 1
        fi
        if (: < "/dev/tcp/localhost/$port") 2>/dev/null; then
            echo "Started Kafka (PID $(cat "$pid_file")) on localhost:$port, log in $log_dir"
            return 0
        fi
        sleep 0.1
    done
    echo "Kafka does not accept connections on localhost:$port after 60 s; log in $log_dir" >&2
    exit 1
}

create_topic() {
    if ! is_running; then
        echo "Kafka is not running; start it with $0 start." >&2
        exit 1
    fi
    local servers
    servers=$(sed -n 's/^advertised.listeners=PLAINTEXT:\/\///p' "$config")
    # A short run: the JIT's first tier and the serial collector start fastest.
    "$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
        -Dlog4j2.configurationFile="file:$KAFKA_HOME/config/log4j2-cli.properties" \
        -cp "$KAFKA_HOME/libs/*" dev.lateralsnapshot.kafka.CreateTopic "$servers" "$@"
}

stop() {
    if ! is_running; then
        echo "No Kafka to stop."
        rm -f "$pid_file"
        return 0
    fi
    local pid
    pid=$(cat "$pid_file")
    # A controlled shutdown of the only node takes a few seconds.
    flink_kill_and_wait "$pid" 30
    rm -f "$pid_file"
    echo "Stopped Kafka (PID $pid)."
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    create-topic)
        shift
        [[ $# -ge 1 ]] || { echo "Usage: $0 create-topic <topic> [<partitions>] [<key>=<value> ...]" >&2; exit 1; }
        create_topic "$@"
        ;;
    *)
        echo "Usage: $0 start|stop|create-topic <topic> [<partitions>] [<key>=<value> ...]" >&2
        exit 1
        ;;
esac
