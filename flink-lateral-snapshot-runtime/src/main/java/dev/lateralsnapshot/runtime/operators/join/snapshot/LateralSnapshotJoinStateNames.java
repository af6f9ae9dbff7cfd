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

import org.apache.flink.annotation.Internal;

/**
 * The names of every state the LATERAL SNAPSHOT join keeps, frozen: a savepoint maps its state to
 * the job's by these names, so renaming one loses that state at a restore. {@code
 * LateralSnapshotJoinStateLayoutTest} pins each name with its kind and serializer.
 *
 * <p>A join keeps the operator state of both distributions, and the state of its own distribution
 * only; each distribution refuses to restore a savepoint that holds the other one's build side.
 */
@Internal
public final class LateralSnapshotJoinStateNames {

    // ---- operator state of both distributions (union list state) ----

    /** The phase of each subtask: 0 loading, 1 joining. */
    public static final String PHASE = "phase";

    /**
     * The phase again, under the name of Flink 2.4's phase state and with a serializer of this
     * library, so that Flink 2.4 refuses a savepoint of this library instead of restoring half of
     * it (see {@code docs/moving-to-flink-2.4.md}).
     */
    public static final String FLINK_2_4_PHASE = "lateral-snapshot-phase";

    /** The latest build time each subtask received. */
    public static final String MAX_BUILD_TIME = "max-build-time";

    /** The build time up to which each subtask applied the build changes. */
    public static final String BUILD_WATERMARK = "build-watermark";

    /** How each subtask's load phase ended: the value of the gauge {@code loadCompletedReason}. */
    public static final String LOAD_COMPLETED_REASON = "load-completed-reason";

    /** Whether each subtask's build input reported a backlog: 1 if so. */
    public static final String BUILD_BACKLOG = "build-backlog";

    // ---- the join that hashes both inputs by the join keys (keyed state) ----

    /** The build row of a key, in the layout with one row per key. */
    public static final String BUILD_ROW = "build-row";

    /** The build rows of a key, or the mark that they are spilled, in the multiset layout. */
    public static final String BUILD_ROW_MULTISET = "build-row-multiset";

    /** Row to number of occurrences, for a key of the multiset layout with too many rows. */
    public static final String BUILD_ROWS_SPILLED = "build-rows";

    /** The build changes that wait for the build watermark, per key and change time. */
    public static final String PENDING_BUILD_CHANGES = "pending-build-changes";

    /** The -U rows that wait for their +U, per key and row time. */
    public static final String HELD_UPDATE_BEFORE = "held-update-before";

    /** Per key: the times of its held -U rows, each with the watermark that lets them go alone. */
    public static final String HELD_UPDATE_BEFORE_TIMES = "held-update-before-times";

    /** The buffered probe rows of a key, by sequence number. */
    public static final String PROBE_BUFFER = "probe-buffer";

    /** The next sequence number of the probe buffer (union operator state). */
    public static final String PROBE_BUFFER_SEQUENCE = "probe-buffer-sequence";

    /** Per key: a time at or after the last access, for the state TTL. */
    public static final String LAST_PROBE_ACCESS = "last-probe-access";

    /** The reading of the TTL clock at each snapshot (union operator state). */
    public static final String STATE_TTL_CLOCK = "state-ttl-clock";

    /** The event-time timers that apply the build changes of a key and time. */
    public static final String BUILD_CHANGE_TIMERS = "build-change-timers";

    /** The processing-time timers of the state TTL. */
    public static final String STATE_TTL_TIMERS = "state-ttl-timers";

    // ---- the join with a broadcast build side (broadcast and operator state) ----

    /** Key to its build row, in the layout with one row per key. */
    public static final String BROADCAST_BUILD_ROW = "broadcast-build-row";

    /** Key to its build rows and their numbers of occurrences, in the multiset layout. */
    public static final String BROADCAST_BUILD_ROWS = "broadcast-build-rows";

    /** Key to its held -U rows, each with its time and the watermark that lets it go alone. */
    public static final String BROADCAST_HELD_UPDATE_BEFORE = "broadcast-held-update-before";

    /** Change time to the build changes that wait for the build watermark. */
    public static final String BROADCAST_PENDING_BUILD_CHANGES = "broadcast-pending-build-changes";

    /** The buffered probe rows of a subtask (operator list state). */
    public static final String BROADCAST_PROBE_BUFFER = "broadcast-probe-buffer";

    private LateralSnapshotJoinStateNames() {}
}
