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

# Usage: sql-gateway.sh start [-D<key>=<value> ...] | stop
# Flink's SQL Gateway in its own JVM, as Flink's distribution runs it. Its REST endpoint
# (sql-gateway.endpoint.rest.* in conf/config.yaml: localhost:8083) takes SQL from Flink's JDBC
# driver (jdbc:flink://localhost:8083) and other REST clients, and submits the jobs to the cluster
# of the configuration; its planner is the drop-in jar's, as in the SQL Client. 'start' starts it
# in the background; options given to it override those of the configuration, for example
# -Dsql-gateway.endpoint.rest.port=8093. 'stop' stops the gateways that 'start' started, by their
# PIDs. Its log goes to log/flink-<user>-sql-gateway-<n>-<host>.log.
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

SQL_GATEWAY_MAIN_CLASS=org.apache.flink.table.gateway.SqlGateway

case "${1:-}" in
    start)
        shift
        classpath=$FLINK_CLASSPATH
        for jar in "$FLINK_OPT_DIR"/flink-sql-gateway-*.jar; do
            classpath=$classpath:$jar
        done
        flink_load_config
        # The gateway reads the configuration from FLINK_CONF_DIR, which flink-env.sh exports.
        flink_start_daemon sql-gateway "$classpath" "$SQL_GATEWAY_MAIN_CLASS" \
            "$(flink_java_opts sql-gateway)" "$@"
        ;;
    stop)
        flink_stop_daemons sql-gateway "$SQL_GATEWAY_MAIN_CLASS"
        ;;
    *)
        echo "Usage: $0 start [-D<key>=<value> ...] | stop" >&2
        exit 1
        ;;
esac
