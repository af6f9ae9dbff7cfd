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

package dev.lateralsnapshot.runtime.operators.join.snapshot;

/**
 * The names of the join's metrics, in the operator's metric group. Those that Flink 2.4's join has
 * carry its names, so that dashboards and alerts keep working after a move to Flink 2.4; the others
 * are this library's own. {@code docs/lateral-snapshot-join.md} ("Metrics") describes each, and the
 * harness tests look them up by the names written out there.
 */
public final class LateralSnapshotJoinMetrics {

    /** Gauge: 0 in the load phase, 1 in the join phase. */
    public static final String CURRENT_PHASE = "currentPhase";

    /** Gauge: probe rows buffered in the load phase since the operator started or restored. */
    public static final String NUM_PROBE_SIDE_RECORDS_BUFFERED = "numProbeSideRecordsBuffered";

    /** Counter: probe rows without a match (dropped by INNER, null-padded by LEFT). */
    public static final String NUM_UNMATCHED_PROBE_RECORDS = "numUnmatchedProbeRecords";

    /** Counter: build retractions that found no row to retract. */
    public static final String NUM_UNMATCHED_BUILD_RETRACTIONS = "numUnmatchedBuildRetractions";

    /** Counter: build keys evicted by the state TTL. */
    public static final String NUM_STATE_TTL_EVICTIONS = "numStateTtlEvictions";

    /** Gauge: the build watermark in epoch millis, Long.MIN_VALUE before the first one. */
    public static final String CURRENT_BUILD_SIDE_WATERMARK = "currentBuildSideWatermark";

    /** Gauge: the probe watermark in epoch millis, Long.MIN_VALUE before the first one. */
    public static final String CURRENT_PROBE_SIDE_WATERMARK = "currentProbeSideWatermark";

    /** Gauge: the largest number of output rows of one probe row (a NULL-padded row counts 1). */
    public static final String MAX_JOIN_FAN_OUT = "maxJoinFanOut";

    /** Gauge: output rows per joined probe row, on average (a NULL-padded row counts 1). */
    public static final String AVG_JOIN_FAN_OUT = "avgJoinFanOut";

    /** Counter: build inserts and updates that arrived after the build watermark passed them. */
    public static final String NUM_LATE_BUILD_SIDE_RECORDS = "numLateBuildSideRecords";

    /** Counter: build changes applied to the build side. */
    public static final String NUM_BUILD_SIDE_CHANGES_APPLIED = "numBuildSideChangesApplied";

    /** Gauge: milliseconds spent in the load phase (still counting while loading). */
    public static final String LOAD_PHASE_DURATION = "loadPhaseDurationMs";

    /**
     * Gauge: how the load phase ended: 0 not yet, 1 the build watermark reached {@code
     * load_completed_time}, 2 the idle timeout, 3 the end of the build input's backlog, 4 the end
     * of the build input.
     */
    public static final String LOAD_COMPLETED_REASON = "loadCompletedReason";

    private LateralSnapshotJoinMetrics() {}
}
