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

# Usage: start-cluster.sh [number of TaskManagers, default 2]
# Starts a standalone session cluster on this machine: one JobManager and the TaskManagers,
# each in its own JVM. Stop it with stop-cluster.sh.
set -euo pipefail
. "$(dirname "$0")/flink-env.sh"

flink_load_config
flink_start_jobmanager
for _ in $(seq 1 "${1:-2}"); do
    flink_start_taskmanager
done
