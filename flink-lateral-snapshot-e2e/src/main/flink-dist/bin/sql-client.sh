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

# Usage: sql-client.sh [embedded] [options], e.g. sql-client.sh -i ddl.sql -f queries.sql
# Flink's SQL Client in embedded mode (with its own SQL Gateway), submitting to the cluster of
# the configuration. Its log goes to log/flink-<user>-sql-client-<host>.log.
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

classpath=$FLINK_CLASSPATH
for jar in "$FLINK_OPT_DIR"/flink-sql-client-*.jar "$FLINK_OPT_DIR"/flink-sql-gateway-*.jar \
    "$FLINK_OPT_DIR"/flink-python-*.jar; do
    classpath=$classpath:$jar
done

flink_load_config
mkdir -p "$FLINK_LOG_DIR"
# shellcheck disable=SC2046 # the JVM options are a list of words
exec "$JAVA" $(flink_java_opts client) \
    -Dlog.file="$FLINK_LOG_DIR/flink-$IDENT-sql-client-$HOST.log" \
    -Dlog4j.configurationFile="file:$FLINK_CONF_DIR/log4j-cli.properties" \
    -cp "$classpath" org.apache.flink.table.client.SqlClient "$@"
