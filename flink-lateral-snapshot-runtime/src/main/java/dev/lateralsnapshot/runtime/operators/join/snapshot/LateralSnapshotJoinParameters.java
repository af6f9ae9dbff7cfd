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

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Arrays;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;
import static org.apache.flink.util.Preconditions.checkState;

/**
 * What a LATERAL SNAPSHOT join is built from, fixed when the job is planned and shipped with the
 * operator: the row types, the condition, the layout and distribution of the build side, the
 * arguments of {@code SNAPSHOT}, and a calc fused into the join. Immutable; built with {@link
 * #builder}, which checks every value.
 */
public final class LateralSnapshotJoinParameters implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * One slice of the drain at the flip ends after this many nanoseconds, or {@link
     * #DRAIN_SLICE_ROWS} rows, whichever comes first; the task then takes its input, and checkpoint
     * barriers with it. A barrier waits behind the input queued before it, so the share of time the
     * input gets decides how soon a checkpoint completes.
     */
    static final long DRAIN_SLICE_NANOS = 10_000_000L;

    static final long DRAIN_SLICE_ROWS = 10_000L;

    private final InternalTypeInfo<RowData> probeType;
    private final InternalTypeInfo<RowData> buildType;
    private final BuildSideDistribution distribution;
    private final BuildSideLayout buildSideLayout;
    @Nullable private final GeneratedJoinCondition condition;
    private final boolean leftOuterJoin;
    private final int[] nullRejectingKeys;
    private final int buildTimeIndex;
    private final int buildTimePrecision;
    private final long loadCompletedTime;
    private final long loadCompletedIdleTimeout;
    private final long stateTtl;
    private final boolean loadCompletedOnCaughtUp;
    private final boolean buildBacklogReported;
    @Nullable private final GeneratedFunction<FlatMapFunction<RowData, RowData>> fusedCalc;
    private final long drainSliceNanos;

    private LateralSnapshotJoinParameters(Builder builder) {
        this.probeType = builder.probeType;
        this.buildType = builder.buildType;
        this.distribution = builder.distribution;
        this.buildSideLayout = builder.buildSideLayout;
        this.condition = builder.condition;
        this.leftOuterJoin = builder.leftOuterJoin;
        this.nullRejectingKeys = positionsOf(builder.filterNullKeys);
        this.buildTimeIndex = builder.buildTimeIndex;
        this.buildTimePrecision = builder.buildTimePrecision;
        this.loadCompletedTime = builder.loadCompletedTime;
        this.loadCompletedIdleTimeout = builder.loadCompletedIdleTimeout;
        this.stateTtl = builder.stateTtl;
        this.loadCompletedOnCaughtUp = builder.loadCompletedOnCaughtUp;
        this.buildBacklogReported = builder.buildBacklogReported;
        this.fusedCalc = builder.fusedCalc;
        this.drainSliceNanos = builder.drainSliceNanos;
    }

    /**
     * @param probeType type of the probe (left) rows, input 1
     * @param buildType type of the build (right) rows, input 2
     * @param distribution how the build side is spread over the subtasks, which decides how it is
     *     kept
     */
    public static Builder builder(
            InternalTypeInfo<RowData> probeType,
            InternalTypeInfo<RowData> buildType,
            BuildSideDistribution distribution) {
        return new Builder(probeType, buildType, distribution);
    }

    /** The positions of the flags that are set. */
    private static int[] positionsOf(boolean[] flags) {
        int[] positions = new int[flags.length];
        int n = 0;
        for (int i = 0; i < flags.length; i++) {
            if (flags[i]) {
                positions[n++] = i;
            }
        }
        return Arrays.copyOf(positions, n);
    }

    public InternalTypeInfo<RowData> probeType() {
        return probeType;
    }

    public InternalTypeInfo<RowData> buildType() {
        return buildType;
    }

    public BuildSideDistribution distribution() {
        return distribution;
    }

    public BuildSideLayout buildSideLayout() {
        return buildSideLayout;
    }

    /** The non-equality conjuncts of the condition; null when it has only equality conjuncts. */
    @Nullable
    public GeneratedJoinCondition condition() {
        return condition;
    }

    public boolean leftOuterJoin() {
        return leftOuterJoin;
    }

    /** The positions in the join key of the keys in which a NULL never matches. */
    public int[] nullRejectingKeys() {
        return nullRejectingKeys.clone();
    }

    /** Whether a NULL in this key (the join key of a row) means that the row never matches. */
    public boolean rejects(RowData key) {
        for (int position : nullRejectingKeys) {
            if (key.isNullAt(position)) {
                return true;
            }
        }
        return false;
    }

    /** The time of a build change: its {@code on_time} column, in epoch millis. */
    public long timeOf(RowData change) {
        return change.getTimestamp(buildTimeIndex, buildTimePrecision).getMillisecond();
    }

    /** Whether a build change has a time; an upsert source's key-only delete may have none. */
    public boolean hasTime(RowData change) {
        return !change.isNullAt(buildTimeIndex);
    }

    /** Epoch millis; the load phase ends when the build watermark reaches it. */
    public long loadCompletedTime() {
        return loadCompletedTime;
    }

    /** Millis; 0 for none. */
    public long loadCompletedIdleTimeout() {
        return loadCompletedIdleTimeout;
    }

    /** Millis; 0 to keep build keys forever. */
    public long stateTtl() {
        return stateTtl;
    }

    /** Whether the load phase also ends when the build input's backlog ends. */
    public boolean loadCompletedOnCaughtUp() {
        return loadCompletedOnCaughtUp;
    }

    /**
     * Whether the planner made the build input report a backlog, or found that it reports one of
     * its own; for the log at the start, which says how the load phase can end.
     */
    public boolean buildBacklogReported() {
        return buildBacklogReported;
    }

    @Nullable
    public GeneratedFunction<FlatMapFunction<RowData, RowData>> fusedCalc() {
        return fusedCalc;
    }

    long drainSliceNanos() {
        return drainSliceNanos;
    }

    /** Builds the parameters of a join; {@link #build} checks them. */
    public static final class Builder {
        private final InternalTypeInfo<RowData> probeType;
        private final InternalTypeInfo<RowData> buildType;
        private final BuildSideDistribution distribution;
        private BuildSideLayout buildSideLayout = BuildSideLayout.MULTISET;
        @Nullable private GeneratedJoinCondition condition;
        private boolean leftOuterJoin;
        private boolean[] filterNullKeys = new boolean[0];
        private int buildTimeIndex = -1;
        private int buildTimePrecision = 3;
        private boolean loadCompletedTimeSet;
        private long loadCompletedTime;
        private long loadCompletedIdleTimeout;
        private long stateTtl;
        private boolean loadCompletedOnCaughtUp;
        private boolean buildBacklogReported;
        @Nullable private GeneratedFunction<FlatMapFunction<RowData, RowData>> fusedCalc;
        private long drainSliceNanos = DRAIN_SLICE_NANOS;

        private Builder(
                InternalTypeInfo<RowData> probeType,
                InternalTypeInfo<RowData> buildType,
                BuildSideDistribution distribution) {
            this.probeType = checkNotNull(probeType);
            this.buildType = checkNotNull(buildType);
            this.distribution = checkNotNull(distribution);
        }

        /** How build rows are kept; {@link BuildSideLayout#MULTISET} unless set. */
        public Builder buildSideLayout(BuildSideLayout buildSideLayout) {
            this.buildSideLayout = checkNotNull(buildSideLayout);
            return this;
        }

        /** The non-equality conjuncts of the condition; null (the default) for none. */
        public Builder condition(@Nullable GeneratedJoinCondition condition) {
            this.condition = condition;
            return this;
        }

        /** Whether unmatched probe rows are emitted padded with nulls; an INNER join unless set. */
        public Builder leftOuterJoin(boolean leftOuterJoin) {
            this.leftOuterJoin = leftOuterJoin;
            return this;
        }

        /**
         * Per equality key, whether a NULL in it never matches (true for {@code =}, false for
         * {@code IS NOT DISTINCT FROM}); empty, the default, without equality keys.
         */
        public Builder filterNullKeys(boolean[] filterNullKeys) {
            this.filterNullKeys = checkNotNull(filterNullKeys).clone();
            return this;
        }

        /**
         * The position and precision (at most 3) of the {@code on_time} column in the build rows;
         * required.
         */
        public Builder buildTime(int index, int precision) {
            this.buildTimeIndex = index;
            this.buildTimePrecision = precision;
            return this;
        }

        /** Epoch millis: the load phase ends when the build watermark reaches it; required. */
        public Builder loadCompletedTime(long loadCompletedTime) {
            this.loadCompletedTime = loadCompletedTime;
            this.loadCompletedTimeSet = true;
            return this;
        }

        /**
         * Millis: the load phase also ends when the build watermark has not advanced for this long;
         * 0, the default, for none.
         */
        public Builder loadCompletedIdleTimeout(long loadCompletedIdleTimeout) {
            this.loadCompletedIdleTimeout = loadCompletedIdleTimeout;
            return this;
        }

        /**
         * Millis: build keys that no probe row and no build change accessed for this long are
         * evicted in the join phase; 0, the default, to keep them forever.
         */
        public Builder stateTtl(long stateTtl) {
            this.stateTtl = stateTtl;
            return this;
        }

        /**
         * Whether the load phase also ends when the build input's backlog ends ({@code
         * table.exec.lateral-snapshot.load-completed-on-caught-up}); false, the default, for the
         * other conditions only.
         */
        public Builder loadCompletedOnCaughtUp(boolean loadCompletedOnCaughtUp) {
            this.loadCompletedOnCaughtUp = loadCompletedOnCaughtUp;
            return this;
        }

        /**
         * Whether the build input reports a backlog: made to by the planner, or of its own; false,
         * the default, when the planner knows of none.
         */
        public Builder buildBacklogReported(boolean buildBacklogReported) {
            this.buildBacklogReported = buildBacklogReported;
            return this;
        }

        /**
         * A projection and filter, generated as Flink generates a {@code Calc}, run on every row
         * the join emits, matched or NULL-padded, before it leaves the operator; its input is the
         * joined row (probe columns, then build columns). The planner fuses the join's only
         * consumer when it is such a Calc, so that the joined row reaches the projection as it is
         * instead of being copied field by field into a chained Calc operator first. The join's
         * metrics still count the joined rows. Null, the default, for none.
         */
        public Builder fusedCalc(
                @Nullable GeneratedFunction<FlatMapFunction<RowData, RowData>> calc) {
            this.fusedCalc = calc;
            return this;
        }

        /**
         * The time budget of a slice of the drain at the flip. Tests set it so that where a slice
         * ends does not depend on the speed of the machine.
         */
        @VisibleForTesting
        public Builder drainSliceNanos(long nanos) {
            checkArgument(nanos >= 0, "The drain slice time must not be negative.");
            this.drainSliceNanos = nanos;
            return this;
        }

        public LateralSnapshotJoinParameters build() {
            checkState(loadCompletedTimeSet, "The load completed time is not set.");
            checkArgument(
                    buildTimeIndex >= 0 && buildTimeIndex < buildType.toRowSize(),
                    "The build time index %s is out of range.",
                    buildTimeIndex);
            checkArgument(
                    buildTimePrecision >= 0 && buildTimePrecision <= 3,
                    "The build time precision must be between 0 and 3, but is %s.",
                    buildTimePrecision);
            checkArgument(loadCompletedIdleTimeout >= 0, "The idle timeout must not be negative.");
            checkArgument(stateTtl >= 0, "The state TTL must not be negative.");
            return new LateralSnapshotJoinParameters(this);
        }
    }
}
