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

# Usage: taskmanager.sh start|stop
# 'start' starts one more TaskManager in its own JVM; 'stop' stops all that were started.
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

case "${1:-}" in
    start)
        flink_load_config
        flink_start_taskmanager
        ;;
    stop)
        flink_stop_daemons taskexecutor "$TASKMANAGER_MAIN_CLASS"
        ;;
    *)
        echo "Usage: $0 start|stop" >&2
        exit 1
        ;;
esac
