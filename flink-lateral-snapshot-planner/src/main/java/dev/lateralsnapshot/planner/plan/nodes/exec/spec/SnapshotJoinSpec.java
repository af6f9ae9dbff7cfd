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

package dev.lateralsnapshot.planner.plan.nodes.exec.spec;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;

import javax.annotation.Nullable;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/**
 * The arguments of {@code SNAPSHOT} as the exec node of the join holds them, with the values they
 * had at planning, and how the build side is kept: what a compiled plan records of the join besides
 * Flink's {@code JoinSpec}. A default {@code load_completed_time} is the wall-clock time of
 * planning and does not move when the plan runs later.
 */
public final class SnapshotJoinSpec {

    /** The load completed condition of a defaulted load completed time. */
    public static final String LOAD_COMPLETED_CONDITION_COMPILE_TIME = "compile_time";

    /** The load completed condition of a given load completed time. */
    public static final String LOAD_COMPLETED_CONDITION_USER_TIME = "user_time";

    private final int buildTimeIndex;
    private final String loadCompletedCondition;
    private final long loadCompletedTime;
    @Nullable private final Long loadCompletedIdleTimeoutMs;
    @Nullable private final Long stateTtlMs;
    private final boolean loadCompletedOnCaughtUp;
    private final BuildSideLayout buildSideLayout;

    /**
     * The arguments as a plan holds them; fails with a message that names the property when one is
     * out of range.
     *
     * @param buildTimeIndex position of the {@code on_time} column in the build rows
     * @param loadCompletedCondition where the load completed time came from
     * @param loadCompletedTime epoch millis
     * @param loadCompletedIdleTimeoutMs millis; null for none (Flink 2.4 reads 0 as a timeout)
     * @param stateTtlMs millis; null to keep build keys forever
     * @param loadCompletedOnCaughtUp whether the end of the build input's backlog also ends the
     *     load phase; null in a plan of Flink 2.4, or of a join planned without the option
     * @param buildSideLayout how the operator keeps the build side; null in a plan of Flink 2.4,
     *     which then gets the multiset layout, right for every build input whose updates retract
     *     the old row with an UPDATE_BEFORE
     */
    public SnapshotJoinSpec(
            int buildTimeIndex,
            String loadCompletedCondition,
            long loadCompletedTime,
            @Nullable Long loadCompletedIdleTimeoutMs,
            @Nullable Long stateTtlMs,
            @Nullable Boolean loadCompletedOnCaughtUp,
            @Nullable BuildSideLayout buildSideLayout) {
        checkArgument(
                buildTimeIndex >= 0,
                "The rightTimeAttributeIndex must not be negative, but is %s.",
                buildTimeIndex);
        checkArgument(
                LOAD_COMPLETED_CONDITION_COMPILE_TIME.equals(loadCompletedCondition)
                        || LOAD_COMPLETED_CONDITION_USER_TIME.equals(loadCompletedCondition),
                "The loadCompletedCondition must be '%s' or '%s', but is '%s'.",
                LOAD_COMPLETED_CONDITION_COMPILE_TIME,
                LOAD_COMPLETED_CONDITION_USER_TIME,
                loadCompletedCondition);
        checkArgument(
                loadCompletedIdleTimeoutMs == null || loadCompletedIdleTimeoutMs >= 0,
                "The loadCompletedIdleTimeoutMs must not be negative, but is %s.",
                loadCompletedIdleTimeoutMs);
        checkArgument(
                stateTtlMs == null || stateTtlMs >= 0,
                "The stateTtlMs must not be negative, but is %s.",
                stateTtlMs);
        this.buildTimeIndex = buildTimeIndex;
        this.loadCompletedCondition = checkNotNull(loadCompletedCondition);
        this.loadCompletedTime = loadCompletedTime;
        this.loadCompletedIdleTimeoutMs = loadCompletedIdleTimeoutMs;
        this.stateTtlMs = stateTtlMs;
        this.loadCompletedOnCaughtUp = Boolean.TRUE.equals(loadCompletedOnCaughtUp);
        this.buildSideLayout = buildSideLayout == null ? BuildSideLayout.MULTISET : buildSideLayout;
    }

    /**
     * The arguments of a join being planned.
     *
     * @param loadCompletedTimeGiven whether the query gave {@code load_completed_time}, rather than
     *     the time of planning
     * @param loadCompletedIdleTimeout millis, 0 for none
     * @param stateTtl millis, 0 to keep build keys forever
     * @param loadCompletedOnCaughtUp the option {@code
     *     table.exec.lateral-snapshot.load-completed-on-caught-up} at planning
     */
    public static SnapshotJoinSpec planned(
            int buildTimeIndex,
            long loadCompletedTime,
            boolean loadCompletedTimeGiven,
            long loadCompletedIdleTimeout,
            long stateTtl,
            boolean loadCompletedOnCaughtUp,
            BuildSideLayout buildSideLayout) {
        return new SnapshotJoinSpec(
                buildTimeIndex,
                loadCompletedTimeGiven
                        ? LOAD_COMPLETED_CONDITION_USER_TIME
                        : LOAD_COMPLETED_CONDITION_COMPILE_TIME,
                loadCompletedTime,
                loadCompletedIdleTimeout > 0 ? loadCompletedIdleTimeout : null,
                stateTtl > 0 ? stateTtl : null,
                loadCompletedOnCaughtUp,
                buildSideLayout);
    }

    /** Position of the {@code on_time} column in the build rows. */
    public int buildTimeIndex() {
        return buildTimeIndex;
    }

    public String loadCompletedCondition() {
        return loadCompletedCondition;
    }

    /** Epoch millis. */
    public long loadCompletedTime() {
        return loadCompletedTime;
    }

    /** Millis, as the plan holds it: null for none. */
    @Nullable
    public Long loadCompletedIdleTimeoutMs() {
        return loadCompletedIdleTimeoutMs;
    }

    /** Millis, 0 for none. */
    public long loadCompletedIdleTimeout() {
        return loadCompletedIdleTimeoutMs == null ? 0 : loadCompletedIdleTimeoutMs;
    }

    /** Millis, as the plan holds it: null to keep build keys forever. */
    @Nullable
    public Long stateTtlMs() {
        return stateTtlMs;
    }

    /** Millis, 0 to keep build keys forever. */
    public long stateTtl() {
        return stateTtlMs == null ? 0 : stateTtlMs;
    }

    /** Whether the end of the build input's backlog also ends the load phase. */
    public boolean loadCompletedOnCaughtUp() {
        return loadCompletedOnCaughtUp;
    }

    public BuildSideLayout buildSideLayout() {
        return buildSideLayout;
    }
}
