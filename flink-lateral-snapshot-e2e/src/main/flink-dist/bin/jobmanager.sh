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

# Usage: jobmanager.sh start|stop
# Starts the JobManager of a standalone session cluster in its own JVM, or stops it.
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

case "${1:-}" in
    start)
        flink_load_config
        flink_start_jobmanager
        ;;
    stop)
        flink_stop_daemons standalonesession "$JOBMANAGER_MAIN_CLASS"
        ;;
    *)
        echo "Usage: $0 start|stop" >&2
        exit 1
        ;;
esac
