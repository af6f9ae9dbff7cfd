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

import dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast.BroadcastDistribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.keyed.HashDistribution;

import org.apache.flink.api.common.functions.AbstractRichFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The join a harness test runs: unless a test changes it, the join of the release-testing plan.
 * Probe rows {@code (id, currency)}, build rows {@code (currency, rate, update_time)} with {@code
 * update_time} as the {@code on_time} column, joined on {@code currency}, an INNER join that loads
 * until the build watermark reaches {@link #LOAD_COMPLETED_TIME}, its build side distributed as the
 * test's parameter says.
 */
public final class JoinSpec {

    /** How the build side is distributed: the two kinds of state of the join. */
    public enum Distribution {
        HASH,
        BROADCAST
    }

    /** Build watermark at which the standard join leaves the load phase. */
    public static final long LOAD_COMPLETED_TIME = 100L;

    public static final LogicalType STRING = new VarCharType(VarCharType.MAX_LENGTH);

    public static final RowType PROBE_TYPE =
            RowType.of(new LogicalType[] {STRING, STRING}, new String[] {"id", "currency"});

    public static final RowType BUILD_TYPE =
            RowType.of(
                    new LogicalType[] {STRING, new IntType(), new TimestampType(3)},
                    new String[] {"currency", "rate", "update_time"});

    RowType probeType = PROBE_TYPE;
    RowType buildType = BUILD_TYPE;
    int[] probeKeys = {1};
    int[] buildKeys = {0};
    boolean[] filterNullKeys = {true};
    int buildTimeIndex = 2;
    @Nullable GeneratedJoinCondition condition;
    boolean leftOuterJoin;
    BuildSideLayout layout = BuildSideLayout.MULTISET;
    long loadCompletedTime = LOAD_COMPLETED_TIME;
    long idleTimeout;
    long stateTtl;
    long buildRowsWarningThreshold;
    boolean loadCompletedOnCaughtUp;

    /**
     * A slice cut by time ends wherever the machine happens to be slow, so the tests cut slices by
     * rows only unless they set a time budget themselves.
     */
    long drainSliceNanos = Long.MAX_VALUE;

    @Nullable GeneratedFunction<FlatMapFunction<RowData, RowData>> calc;
    @Nullable RowType calcOutputType;

    /** The distribution this spec fixes; null for the test's. */
    @Nullable Distribution distribution;

    public JoinSpec leftOuterJoin() {
        this.leftOuterJoin = true;
        return this;
    }

    public JoinSpec loadCompletedTime(long loadCompletedTime) {
        this.loadCompletedTime = loadCompletedTime;
        return this;
    }

    public JoinSpec idleTimeout(long idleTimeout) {
        this.idleTimeout = idleTimeout;
        return this;
    }

    public JoinSpec stateTtl(long stateTtl) {
        this.stateTtl = stateTtl;
        return this;
    }

    public JoinSpec layout(BuildSideLayout layout) {
        this.layout = layout;
        return this;
    }

    /** A join whose load phase also ends when the build input's backlog ends. */
    public JoinSpec loadCompletedOnCaughtUp() {
        this.loadCompletedOnCaughtUp = true;
        return this;
    }

    public JoinSpec drainSliceNanos(long nanos) {
        this.drainSliceNanos = nanos;
        return this;
    }

    /** A broadcast join that warns when a subtask's build side holds more rows. */
    public JoinSpec buildRowsWarningThreshold(long rows) {
        this.buildRowsWarningThreshold = rows;
        return this;
    }

    /** Runs the join with this distribution, whatever the test's parameter. */
    public JoinSpec distribution(Distribution distribution) {
        this.distribution = distribution;
        return this;
    }

    public JoinSpec condition(JoinPredicate predicate) {
        this.condition = generatedCondition(predicate);
        return this;
    }

    /**
     * A calc fused into the join, written by hand where the planner would generate code: the join's
     * output is then the calc's, of the given type.
     */
    public JoinSpec fusedCalc(RowType outputType, FlatMapFunction<RowData, RowData> function) {
        this.calc = generatedCalc(function);
        this.calcOutputType = outputType;
        return this;
    }

    /** Other row types; the build time column and the keys are then given explicitly. */
    public JoinSpec types(RowType probeType, RowType buildType, int buildTimeIndex) {
        this.probeType = probeType;
        this.buildType = buildType;
        this.buildTimeIndex = buildTimeIndex;
        return this;
    }

    /** The equality keys; {@code filterNullKeys} per key as for the operator. */
    public JoinSpec keys(int[] probeKeys, int[] buildKeys, boolean... filterNullKeys) {
        this.probeKeys = probeKeys;
        this.buildKeys = buildKeys;
        this.filterNullKeys = filterNullKeys;
        return this;
    }

    /** No equality predicate: every row has the same, empty key. */
    public JoinSpec noEquiKeys() {
        return keys(new int[0], new int[0]);
    }

    public RowDataKeySelector probeKeySelector() {
        return new KeyProjection(probeType, probeKeys);
    }

    public RowDataKeySelector buildKeySelector() {
        return new KeyProjection(buildType, buildKeys);
    }

    public RowType outputType() {
        if (calcOutputType != null) {
            return calcOutputType;
        }
        List<LogicalType> fields = new ArrayList<>(probeType.getChildren());
        fields.addAll(buildType.getChildren());
        return RowType.of(fields.toArray(new LogicalType[0]));
    }

    /** The operator's parameters, with the build side distributed as given. */
    public LateralSnapshotJoinParameters parameters(Distribution distribution) {
        BuildSideDistribution buildSideDistribution =
                distribution == Distribution.HASH
                        ? new HashDistribution()
                        : new BroadcastDistribution(
                                probeKeySelector(), buildKeySelector(), buildRowsWarningThreshold);
        return LateralSnapshotJoinParameters.builder(
                        InternalTypeInfo.of(probeType),
                        InternalTypeInfo.of(buildType),
                        buildSideDistribution)
                .condition(condition)
                .leftOuterJoin(leftOuterJoin)
                .filterNullKeys(filterNullKeys)
                .buildSideLayout(layout)
                .buildTime(buildTimeIndex, 3)
                .loadCompletedTime(loadCompletedTime)
                .loadCompletedIdleTimeout(idleTimeout)
                .stateTtl(stateTtl)
                .loadCompletedOnCaughtUp(loadCompletedOnCaughtUp)
                .buildBacklogReported(loadCompletedOnCaughtUp)
                .fusedCalc(calc)
                .drainSliceNanos(drainSliceNanos)
                .build();
    }

    /**
     * Projects the key fields into a {@link org.apache.flink.table.data.binary.BinaryRowData}, the
     * key form the planner's generated selectors produce; keys restored from RocksDB are binary
     * too, and only equal forms hash alike. Flink's {@code HandwrittenSelectorUtil} would do, but
     * checks the wrong field for NULL when the key fields are not the leading ones.
     */
    public static final class KeyProjection implements RowDataKeySelector {
        private static final long serialVersionUID = 1L;

        private final RowType rowType;
        private final int[] keyFields;
        private transient RowData.FieldGetter[] getters;
        private transient RowDataSerializer keySerializer;

        KeyProjection(RowType rowType, int[] keyFields) {
            this.rowType = rowType;
            this.keyFields = keyFields;
        }

        @Override
        public RowData getKey(RowData row) {
            if (getters == null) {
                getters =
                        Arrays.stream(keyFields)
                                .mapToObj(i -> RowData.createFieldGetter(rowType.getTypeAt(i), i))
                                .toArray(RowData.FieldGetter[]::new);
                keySerializer = new RowDataSerializer(getProducedType().toRowType());
            }
            GenericRowData key = new GenericRowData(keyFields.length);
            for (int i = 0; i < keyFields.length; i++) {
                key.setField(i, getters[i].getFieldOrNull(row));
            }
            return keySerializer.toBinaryRow(key).copy();
        }

        @Override
        public InternalTypeInfo<RowData> getProducedType() {
            return InternalTypeInfo.ofFields(
                    Arrays.stream(keyFields)
                            .mapToObj(rowType::getTypeAt)
                            .toArray(LogicalType[]::new));
        }

        @Override
        public RowDataKeySelector copy() {
            return new KeyProjection(rowType, keyFields);
        }
    }

    /** A non-equality condition, written by hand where the planner would generate code. */
    @FunctionalInterface
    public interface JoinPredicate extends Serializable {
        boolean test(RowData probeRow, RowData buildRow);
    }

    private static GeneratedFunction<FlatMapFunction<RowData, RowData>> generatedCalc(
            FlatMapFunction<RowData, RowData> function) {
        return new GeneratedFunction<>("HandWrittenCalc", "", new Object[0]) {
            private static final long serialVersionUID = 1L;

            @Override
            public FlatMapFunction<RowData, RowData> newInstance(ClassLoader classLoader) {
                return function;
            }
        };
    }

    private static GeneratedJoinCondition generatedCondition(JoinPredicate predicate) {
        return new GeneratedJoinCondition("HandWrittenJoinCondition", "", new Object[0]) {
            private static final long serialVersionUID = 1L;

            @Override
            public JoinCondition newInstance(ClassLoader classLoader) {
                return new PredicateJoinCondition(predicate);
            }
        };
    }

    private static final class PredicateJoinCondition extends AbstractRichFunction
            implements JoinCondition {
        private static final long serialVersionUID = 1L;

        private final JoinPredicate predicate;

        PredicateJoinCondition(JoinPredicate predicate) {
            this.predicate = predicate;
        }

        @Override
        public boolean apply(RowData probeRow, RowData buildRow) {
            return predicate.test(probeRow, buildRow);
        }
    }
}
