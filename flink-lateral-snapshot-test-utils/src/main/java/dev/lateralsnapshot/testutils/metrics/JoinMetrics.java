/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.lateralsnapshot.testutils.metrics;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The values of the join's metrics at one moment: per subtask, by metric name. */
public final class JoinMetrics {

    // The metrics of docs/lateral-snapshot-join.md, section "Metrics", spelled out rather than
    // taken from the operator: users and dashboards know them by these names, so renaming one in
    // the operator must fail here. The last four are the extras of this library.

    public static final String CURRENT_PHASE = "currentPhase";
    public static final String NUM_PROBE_SIDE_RECORDS_BUFFERED = "numProbeSideRecordsBuffered";
    public static final String NUM_UNMATCHED_PROBE_RECORDS = "numUnmatchedProbeRecords";
    public static final String NUM_UNMATCHED_BUILD_RETRACTIONS = "numUnmatchedBuildRetractions";
    public static final String NUM_STATE_TTL_EVICTIONS = "numStateTtlEvictions";
    public static final String CURRENT_BUILD_SIDE_WATERMARK = "currentBuildSideWatermark";
    public static final String CURRENT_PROBE_SIDE_WATERMARK = "currentProbeSideWatermark";
    public static final String MAX_JOIN_FAN_OUT = "maxJoinFanOut";
    public static final String AVG_JOIN_FAN_OUT = "avgJoinFanOut";
    public static final String NUM_LATE_BUILD_SIDE_RECORDS = "numLateBuildSideRecords";
    public static final String NUM_BUILD_SIDE_CHANGES_APPLIED = "numBuildSideChangesApplied";
    public static final String LOAD_PHASE_DURATION_MS = "loadPhaseDurationMs";
    public static final String LOAD_COMPLETED_REASON = "loadCompletedReason";

    private final Map<Integer, Map<String, Object>> values;

    JoinMetrics(Map<Integer, Map<String, Object>> values) {
        this.values = values;
    }

    /** The subtasks that reported the join's metrics. */
    public Set<Integer> subtasks() {
        return values.keySet();
    }

    /** A metric of one subtask; fails when that subtask did not report it. */
    public Object value(int subtask, String name) {
        Object value = values.getOrDefault(subtask, Map.of()).get(name);
        if (value == null) {
            throw new AssertionError(
                    "Subtask " + subtask + " reported no metric '" + name + "': " + values);
        }
        return value;
    }

    /** A metric as a long, per subtask. */
    public Map<Integer, Long> longs(String name) {
        return values.keySet().stream()
                .collect(
                        Collectors.toMap(
                                subtask -> subtask,
                                subtask -> ((Number) value(subtask, name)).longValue()));
    }

    /** A metric summed over the subtasks: the job-wide value of a counter or count. */
    public long sum(String name) {
        return longs(name).values().stream().mapToLong(Long::longValue).sum();
    }

    /** A metric's largest value over the subtasks. */
    public long max(String name) {
        return longs(name).values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    /** Whether every subtask reports this value (and at least one reports). */
    public boolean allEqual(String name, long expected) {
        return !values.isEmpty()
                && longs(name).values().stream().allMatch(value -> value == expected);
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
