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

import org.apache.flink.api.common.functions.AbstractRichFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
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
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.extension.ExtendWith;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Base of the operator's harness tests. Every test runs once per state backend, on a {@link
 * KeyedTwoInputStreamOperatorTestHarness} with the probe rows on input 1 and the build rows on
 * input 2.
 *
 * <p>Unless a test says otherwise the join is the one of the release-testing plan: probe rows
 * {@code (id, currency)}, build rows {@code (currency, rate, update_time)} with {@code update_time}
 * as the {@code on_time} column, joined on {@code currency}, an INNER join that loads until the
 * build watermark reaches {@link #LOAD_COMPLETED_TIME}. Output is compared as text: records as
 * {@code +I(o1,A,A,1,10)} (timestamps in epoch millis), watermarks as {@code WM(5)}, watermark
 * statuses as {@code IDLE} / {@code ACTIVE}. Metrics are looked up by the names the Metrics section
 * of {@code docs/lateral-snapshot-join.md} gives them, written out rather than taken from the
 * operator's constants, so that renaming one fails a test.
 */
@ExtendWith(ParameterizedTestExtension.class)
abstract class LateralSnapshotJoinTestBase {

    /** The state backends every test runs on. */
    enum Backend {
        HEAP,
        ROCKSDB,
        /** Snapshots and restores take another path than full RocksDB snapshots. */
        ROCKSDB_INCREMENTAL
    }

    @Parameters(name = "backend = {0}")
    public static Collection<Backend> backends() {
        return Arrays.asList(Backend.values());
    }

    @Parameter public Backend backend;

    static final int MAX_PARALLELISM = 128;

    /** Build watermark at which the standard join leaves the load phase. */
    static final long LOAD_COMPLETED_TIME = 100L;

    static final LogicalType STRING = new VarCharType(VarCharType.MAX_LENGTH);

    static final RowType PROBE_TYPE =
            RowType.of(new LogicalType[] {STRING, STRING}, new String[] {"id", "currency"});

    static final RowType BUILD_TYPE =
            RowType.of(
                    new LogicalType[] {STRING, new IntType(), new TimestampType(3)},
                    new String[] {"currency", "rate", "update_time"});

    // ---- the join under test ----

    /** What the harness runs: the standard join unless a test changes it. */
    static final class JoinSpec {
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
        @Nullable GeneratedFunction<FlatMapFunction<RowData, RowData>> calc;
        @Nullable RowType calcOutputType;

        JoinSpec leftOuterJoin() {
            this.leftOuterJoin = true;
            return this;
        }

        JoinSpec loadCompletedTime(long loadCompletedTime) {
            this.loadCompletedTime = loadCompletedTime;
            return this;
        }

        JoinSpec idleTimeout(long idleTimeout) {
            this.idleTimeout = idleTimeout;
            return this;
        }

        JoinSpec stateTtl(long stateTtl) {
            this.stateTtl = stateTtl;
            return this;
        }

        JoinSpec layout(BuildSideLayout layout) {
            this.layout = layout;
            return this;
        }

        JoinSpec condition(JoinPredicate predicate) {
            this.condition = generatedCondition(predicate);
            return this;
        }

        /**
         * A calc fused into the join, written by hand where the planner would generate code: the
         * join's output is then the calc's, of the given type.
         */
        JoinSpec fusedCalc(RowType outputType, FlatMapFunction<RowData, RowData> function) {
            this.calc = generatedCalc(function);
            this.calcOutputType = outputType;
            return this;
        }

        /** Other row types; the build time column and the keys are then given explicitly. */
        JoinSpec types(RowType probeType, RowType buildType, int buildTimeIndex) {
            this.probeType = probeType;
            this.buildType = buildType;
            this.buildTimeIndex = buildTimeIndex;
            return this;
        }

        /** The equality keys; {@code filterNullKeys} per key as for the operator. */
        JoinSpec keys(int[] probeKeys, int[] buildKeys, boolean... filterNullKeys) {
            this.probeKeys = probeKeys;
            this.buildKeys = buildKeys;
            this.filterNullKeys = filterNullKeys;
            return this;
        }

        /** No equality predicate: every row has the same, empty key. */
        JoinSpec noEquiKeys() {
            return keys(new int[0], new int[0]);
        }

        RowDataKeySelector probeKeySelector() {
            return new KeyProjection(probeType, probeKeys);
        }

        RowDataKeySelector buildKeySelector() {
            return new KeyProjection(buildType, buildKeys);
        }

        RowType outputType() {
            if (calcOutputType != null) {
                return calcOutputType;
            }
            List<LogicalType> fields = new ArrayList<>(probeType.getChildren());
            fields.addAll(buildType.getChildren());
            return RowType.of(fields.toArray(new LogicalType[0]));
        }

        MetricsExposingOperator createOperator() {
            MetricsExposingOperator operator =
                    new MetricsExposingOperator(
                            InternalTypeInfo.of(probeType),
                            InternalTypeInfo.of(buildType),
                            condition,
                            leftOuterJoin,
                            filterNullKeys,
                            layout,
                            buildTimeIndex,
                            3,
                            loadCompletedTime,
                            idleTimeout,
                            stateTtl);
            operator.setFusedCalc(calc);
            return operator;
        }
    }

    static JoinSpec join() {
        return new JoinSpec();
    }

    /**
     * Projects the key fields into a {@link BinaryRowData}, the key form the planner's generated
     * selectors produce; keys restored from RocksDB are binary too, and only equal forms hash
     * alike. Flink's {@code HandwrittenSelectorUtil} would do, but checks the wrong field for NULL
     * when the key fields are not the leading ones.
     */
    static final class KeyProjection implements RowDataKeySelector {
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
    interface JoinPredicate extends Serializable {
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

    /**
     * The operator with a metric group that keeps what is registered on it. The keyed harness
     * builds its mock environment itself, so no intercepting task metric group can be handed to it;
     * the runtime context the operator registers its metrics on takes its group from {@link
     * #getMetricGroup()}. Nothing else is changed.
     */
    static final class MetricsExposingOperator extends LateralSnapshotJoinOperator {
        private static final long serialVersionUID = 1L;

        private final transient InterceptingOperatorMetricGroup metrics =
                new InterceptingOperatorMetricGroup();

        MetricsExposingOperator(
                InternalTypeInfo<RowData> probeType,
                InternalTypeInfo<RowData> buildType,
                @Nullable GeneratedJoinCondition generatedCondition,
                boolean leftOuterJoin,
                boolean[] filterNullKeys,
                BuildSideLayout buildSideLayout,
                int buildTimeIndex,
                int buildTimePrecision,
                long loadCompletedTime,
                long loadCompletedIdleTimeout,
                long stateTtl) {
            super(
                    probeType,
                    buildType,
                    generatedCondition,
                    leftOuterJoin,
                    filterNullKeys,
                    buildSideLayout,
                    buildTimeIndex,
                    buildTimePrecision,
                    loadCompletedTime,
                    loadCompletedIdleTimeout,
                    stateTtl);
            // A slice cut by time ends wherever the machine happens to be slow, so the tests
            // cut slices by rows only; LateralSnapshotJoinDrainTest sets a time budget itself.
            setDrainSliceNanos(Long.MAX_VALUE);
        }

        @Override
        public OperatorMetricGroup getMetricGroup() {
            return metrics;
        }
    }

    // ---- harness ----

    /** The metrics an operator registered, looked up by name. */
    interface ExposedMetrics {
        InterceptingOperatorMetricGroup metrics();

        default Metric metric(String name) {
            Metric metric = metrics().get(name);
            if (metric == null) {
                throw new AssertionError("No metric named " + name);
            }
            return metric;
        }

        default long counter(String name) {
            return ((Counter) metric(name)).getCount();
        }

        default Object gauge(String name) {
            return ((Gauge<?>) metric(name)).getValue();
        }
    }

    /** The Flink harness with this join's row types fixed and its metrics at hand. */
    static final class JoinHarness
            extends KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData>
            implements ExposedMetrics {

        private final MetricsExposingOperator operator;
        private final RowType outputType;

        private JoinHarness(
                MetricsExposingOperator operator, JoinSpec spec, int parallelism, int subtaskIndex)
                throws Exception {
            super(
                    operator,
                    spec.probeKeySelector(),
                    spec.buildKeySelector(),
                    spec.probeKeySelector().getProducedType(),
                    MAX_PARALLELISM,
                    parallelism,
                    subtaskIndex);
            this.operator = operator;
            this.outputType = spec.outputType();
        }

        @Override
        public InterceptingOperatorMetricGroup metrics() {
            return operator.metrics;
        }

        MetricsExposingOperator operator() {
            return operator;
        }

        /** Everything emitted since the last call, as text, in order. */
        List<String> takeOutput() {
            return takeFormatted(getOutput(), outputType);
        }
    }

    /** Everything in a harness's output, as text, in order; the output is emptied. */
    static List<String> takeFormatted(Collection<Object> output, RowType outputType) {
        List<String> out =
                output.stream()
                        .map(element -> format(element, outputType))
                        .collect(Collectors.toList());
        output.clear();
        return out;
    }

    private static String format(Object element, RowType outputType) {
        if (element instanceof StreamRecord) {
            return formatRow((RowData) ((StreamRecord<?>) element).getValue(), outputType);
        } else if (element instanceof Watermark) {
            return "WM(" + ((Watermark) element).getTimestamp() + ")";
        } else if (element instanceof WatermarkStatus) {
            return ((WatermarkStatus) element).isIdle() ? "IDLE" : "ACTIVE";
        }
        return String.valueOf(element);
    }

    /** A harness for a single subtask, set up but not opened. */
    JoinHarness harness(JoinSpec spec) throws Exception {
        return harness(spec, 1, 0);
    }

    /** A harness for one subtask of a parallel join, set up but not opened. */
    JoinHarness harness(JoinSpec spec, int parallelism, int subtaskIndex) throws Exception {
        JoinHarness harness =
                new JoinHarness(spec.createOperator(), spec, parallelism, subtaskIndex);
        harness.setStateBackend(createStateBackend());
        // Processing time starts at Long.MIN_VALUE in the harness; timeouts added to it overflow.
        harness.setProcessingTime(0L);
        // The operator reuses its output row; the harness copies what it collects with this.
        harness.setup(new RowDataSerializer(spec.outputType()));
        return harness;
    }

    StateBackend createStateBackend() {
        switch (backend) {
            case HEAP:
                return new HashMapStateBackend();
            case ROCKSDB:
                return new EmbeddedRocksDBStateBackend(false);
            case ROCKSDB_INCREMENTAL:
                return new EmbeddedRocksDBStateBackend(true);
            default:
                throw new IllegalStateException("Unknown backend " + backend);
        }
    }

    // ---- rows ----

    static StreamRecord<RowData> probe(String id, @Nullable String currency) {
        return record(RowKind.INSERT, id, currency);
    }

    static StreamRecord<RowData> insert(@Nullable String currency, int rate, long time) {
        return record(RowKind.INSERT, currency, rate, at(time));
    }

    static StreamRecord<RowData> updateBefore(String currency, int rate, long time) {
        return record(RowKind.UPDATE_BEFORE, currency, rate, at(time));
    }

    static StreamRecord<RowData> updateAfter(String currency, int rate, long time) {
        return record(RowKind.UPDATE_AFTER, currency, rate, at(time));
    }

    static StreamRecord<RowData> delete(String currency, int rate, long time) {
        return record(RowKind.DELETE, currency, rate, at(time));
    }

    static TimestampData at(long epochMillis) {
        return TimestampData.fromEpochMillis(epochMillis);
    }

    /** A row of any type: strings become {@link StringData}, everything else stays as it is. */
    static StreamRecord<RowData> record(RowKind kind, @Nullable Object... fields) {
        Object[] values =
                Arrays.stream(fields)
                        .map(f -> f instanceof String ? StringData.fromString((String) f) : f)
                        .toArray();
        return new StreamRecord<>(GenericRowData.ofKind(kind, values));
    }

    static Watermark watermark(long time) {
        return new Watermark(time);
    }

    /** A joined row of the standard join, as {@link JoinHarness#takeOutput()} prints it. */
    static String joined(String id, String currency, int rate, long time) {
        return "+I(" + id + "," + currency + "," + currency + "," + rate + "," + time + ")";
    }

    /** A probe row of the standard LEFT join padded with NULLs. */
    static String padded(String id, @Nullable String currency) {
        return "+I(" + id + "," + currency + ",null,null,null)";
    }

    static String formatRow(RowData row, RowType type) {
        List<LogicalType> fieldTypes = type.getChildren();
        String fields =
                Stream.iterate(0, i -> i + 1)
                        .limit(fieldTypes.size())
                        .map(i -> RowData.createFieldGetter(fieldTypes.get(i), i))
                        .map(getter -> formatField(getter.getFieldOrNull(row)))
                        .collect(Collectors.joining(","));
        return row.getRowKind().shortString() + "(" + fields + ")";
    }

    private static String formatField(@Nullable Object field) {
        if (field instanceof TimestampData) {
            return String.valueOf(((TimestampData) field).getMillisecond());
        }
        return String.valueOf(field);
    }
}
