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

# Shared by the launch scripts of this distribution; sourced, never run.
#
# Honours FLINK_CONF_DIR (default: conf/), FLINK_LOG_DIR (default: log/) and JAVA_HOME.

FLINK_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLINK_CONF_DIR=${FLINK_CONF_DIR:-$FLINK_HOME/conf}
FLINK_LOG_DIR=${FLINK_LOG_DIR:-$FLINK_HOME/log}
# Flink's CLI and SQL Client find the configuration and the opt/ jars through these.
export FLINK_HOME FLINK_CONF_DIR FLINK_LOG_DIR
export FLINK_BIN_DIR=$FLINK_HOME/bin FLINK_LIB_DIR=$FLINK_HOME/lib FLINK_OPT_DIR=$FLINK_HOME/opt

if [[ -n "${JAVA_HOME:-}" ]]; then
    JAVA=$JAVA_HOME/bin/java
else
    JAVA=java
fi

FLINK_CLASSPATH="$FLINK_LIB_DIR/*"
HOST=$(hostname)
IDENT=${USER:-$(id -un)}

# Reads the configuration, flattened by Flink itself, for flink_config.
flink_load_config() {
    FLINK_FLAT_CONFIG=$(flink_bash_java_utils UPDATE_AND_GET_FLINK_CONFIGURATION \
        --configDir "$FLINK_CONF_DIR" -flatten)
}

# Prints the value of one option of the configuration that flink_load_config read, or nothing.
flink_config() {
    echo "$FLINK_FLAT_CONFIG" | sed -n "s/^${1//./\\.}: //p" | tail -n 1
}

# Runs Flink's BashJavaUtils and prints its result lines, without their prefix.
flink_bash_java_utils() {
    local output
    # A short run: the JIT's first tier and the serial collector start fastest.
    output=$("$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$FLINK_CLASSPATH" \
        -Dlog4j.configurationFile="file:$FLINK_CONF_DIR/log4j-console.properties" \
        org.apache.flink.runtime.util.bash.BashJavaUtils "$@" 2>&1) || {
        echo "BashJavaUtils $1 failed:" >&2
        echo "$output" >&2
        return 1
    }
    echo "$output" | sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p'
}

# The JVM options of 'env.java.opts.all' plus those of one kind of process.
flink_java_opts() {
    local kind=$1
    echo "$(flink_config env.java.opts.all) $(flink_config "env.java.opts.$kind")"
}

# ---- daemons ----

JOBMANAGER_MAIN_CLASS=org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint
TASKMANAGER_MAIN_CLASS=org.apache.flink.runtime.taskexecutor.TaskManagerRunner

# Starts the JobManager of a standalone session cluster. Needs flink_load_config.
flink_start_jobmanager() {
    local params
    # Two lines: the JVM memory options, then the memory settings they were derived from.
    params=$(flink_bash_java_utils GET_JM_RESOURCE_PARAMS --configDir "$FLINK_CONF_DIR")
    # shellcheck disable=SC2046 # the dynamic configs are a list of '-D key=value' words
    flink_start_daemon standalonesession "$FLINK_CLASSPATH" "$JOBMANAGER_MAIN_CLASS" \
        "$(echo "$params" | tail -n 2 | head -n 1) $(flink_java_opts jobmanager)" \
        --configDir "$FLINK_CONF_DIR" --executionMode cluster $(echo "$params" | tail -n 1)
}

# Starts one more TaskManager. Needs flink_load_config.
flink_start_taskmanager() {
    # The memory options are the same for every TaskManager: computed once per script.
    if [[ -z "${FLINK_TM_PARAMS:-}" ]]; then
        FLINK_TM_PARAMS=$(flink_bash_java_utils GET_TM_RESOURCE_PARAMS --configDir "$FLINK_CONF_DIR")
    fi
    # shellcheck disable=SC2046 # the dynamic configs are a list of '-D key=value' words
    flink_start_daemon taskexecutor "$FLINK_CLASSPATH" "$TASKMANAGER_MAIN_CLASS" \
        "$(echo "$FLINK_TM_PARAMS" | tail -n 2 | head -n 1) $(flink_java_opts taskmanager)" \
        --configDir "$FLINK_CONF_DIR" $(echo "$FLINK_TM_PARAMS" | tail -n 1)
}

# The file that holds the PIDs of the running daemons of one type, one per line.
flink_pid_file() {
    echo "$FLINK_LOG_DIR/flink-$IDENT-$1.pid"
}

# Starts a daemon in the background:
# <type> <class path> <main class> <JVM options> <program arguments>...
# Its log goes to log/flink-<user>-<type>-<n>-<host>.log, its stdout and stderr to the .out file.
flink_start_daemon() {
    local type=$1 classpath=$2 main_class=$3 jvm_opts=$4
    shift 4
    mkdir -p "$FLINK_LOG_DIR"
    local pid_file n log out
    pid_file=$(flink_pid_file "$type")
    n=0
    if [[ -f "$pid_file" ]]; then
        n=$(wc -l < "$pid_file")
    fi
    log="$FLINK_LOG_DIR/flink-$IDENT-$type-$n-$HOST.log"
    out="$FLINK_LOG_DIR/flink-$IDENT-$type-$n-$HOST.out"
    # shellcheck disable=SC2086 # the JVM options are a list of words
    nohup "$JAVA" $jvm_opts \
        -Dlog.file="$log" \
        -Dlog4j.configurationFile="file:$FLINK_CONF_DIR/log4j.properties" \
        -cp "$classpath" "$main_class" "$@" \
        > "$out" 2>&1 < /dev/null &
    echo $! >> "$pid_file"
    echo "Started $type $n (PID $!), log $log"
}

# Asks a process to stop, waits up to <seconds> for it to end, then kills it: <pid> <seconds>.
flink_kill_and_wait() {
    local pid=$1 seconds=$2
    kill "$pid"
    for _ in $(seq 1 $((seconds * 10))); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
}

# Stops every daemon of one type that this distribution started, by the PIDs in its PID file:
# <type> <main class>.
flink_stop_daemons() {
    local type=$1 main_class=$2
    local pid_file pid args
    pid_file=$(flink_pid_file "$type")
    [[ -f "$pid_file" ]] || { echo "No $type to stop."; return 0; }
    while read -r pid; do
        # Only a process that still runs our main class and logs into our log directory is ours:
        # the PID may since have gone to another process.
        args=$(ps -p "$pid" -o args= 2>/dev/null) || continue
        if [[ "$args" == *"-Dlog.file=$FLINK_LOG_DIR/flink-$IDENT-$type-"* &&
            "$args" == *" $main_class"* ]]; then
            flink_kill_and_wait "$pid" 10
            echo "Stopped $type (PID $pid)."
        fi
    done < "$pid_file"
    rm -f "$pid_file"
}
