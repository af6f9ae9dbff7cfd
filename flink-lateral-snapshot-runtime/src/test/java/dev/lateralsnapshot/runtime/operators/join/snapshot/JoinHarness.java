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

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.MapTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One subtask of a join in Flink's harness, with the probe rows on input 1 and the build rows on
 * input 2, connected as the planner connects the join of its distribution: keyed by the join keys
 * ({@link KeyedTwoInputStreamOperatorTestHarness}) or not keyed at all, for a broadcast build side.
 * Its output is read as text and its metrics by name.
 */
public final class JoinHarness implements AutoCloseable {

    public static final int MAX_PARALLELISM = 128;

    private final MetricsExposingOperator operator;
    private final TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> harness;
    private final JoinSpec spec;
    private final Distribution distribution;

    /** A harness for one subtask of a parallel join, set up but not opened. */
    public JoinHarness(
            JoinSpec spec,
            Distribution distribution,
            StateBackend backend,
            int parallelism,
            int subtaskIndex)
            throws Exception {
        this.operator = new MetricsExposingOperator(spec.parameters(distribution));
        this.spec = spec;
        this.distribution = distribution;
        this.harness =
                distribution == Distribution.HASH
                        ? new KeyedTwoInputStreamOperatorTestHarness<>(
                                operator,
                                spec.probeKeySelector(),
                                spec.buildKeySelector(),
                                spec.probeKeySelector().getProducedType(),
                                MAX_PARALLELISM,
                                parallelism,
                                subtaskIndex)
                        : new TwoInputStreamOperatorTestHarness<>(
                                operator, MAX_PARALLELISM, parallelism, subtaskIndex);
        harness.setStateBackend(backend);
        // Processing time starts at Long.MIN_VALUE in the harness; timeouts added to it overflow.
        harness.setProcessingTime(0L);
        // The operator reuses its output row; the harness copies what it collects with this.
        harness.setup(new RowDataSerializer(spec.outputType()));
    }

    public LateralSnapshotJoinOperator operator() {
        return operator;
    }

    public void initializeState(OperatorSubtaskState snapshot) throws Exception {
        harness.initializeState(snapshot);
    }

    public void open() throws Exception {
        harness.open();
    }

    public OperatorSubtaskState snapshot(long checkpointId, long timestamp) throws Exception {
        return harness.snapshot(checkpointId, timestamp);
    }

    public void notifyOfCompletedCheckpoint(long checkpointId) throws Exception {
        harness.notifyOfCompletedCheckpoint(checkpointId);
    }

    public void processElement1(StreamRecord<RowData> record) throws Exception {
        harness.processElement1(record);
    }

    public void processElement2(StreamRecord<RowData> record) throws Exception {
        harness.processElement2(record);
    }

    public void processWatermark1(Watermark mark) throws Exception {
        harness.processWatermark1(mark);
    }

    public void processWatermark2(Watermark mark) throws Exception {
        harness.processWatermark2(mark);
    }

    public void processWatermarkStatus1(WatermarkStatus status) throws Exception {
        harness.processWatermarkStatus1(status);
    }

    public void processWatermarkStatus2(WatermarkStatus status) throws Exception {
        harness.processWatermarkStatus2(status);
    }

    public void processRecordAttributes1(RecordAttributes attributes) throws Exception {
        harness.processRecordAttributes1(attributes);
    }

    public void processRecordAttributes2(RecordAttributes attributes) throws Exception {
        harness.processRecordAttributes2(attributes);
    }

    public void setProcessingTime(long time) throws Exception {
        harness.setProcessingTime(time);
    }

    public long getProcessingTime() {
        return harness.getProcessingTime();
    }

    /** The times of the processing-time timers that have not fired yet. */
    public Set<Long> processingTimers() {
        return harness.getProcessingTimeService().getActiveTimerTimestamps();
    }

    /**
     * The event-time timers the join has registered and that have not fired yet; none for a
     * broadcast build side, whose join is not keyed and has no timers.
     */
    public int eventTimeTimers() {
        return distribution == Distribution.HASH ? harness.numEventTimeTimers() : 0;
    }

    /**
     * Fires the timers due now. The drain at the flip goes on in them, and a slice of it also ends
     * after a time, so on a loaded machine the first slice may not join every buffered row.
     */
    public void fireDueTimers() throws Exception {
        harness.setProcessingTime(harness.getProcessingTime());
    }

    /** Ends both inputs, as the end of a bounded job does. */
    public void finish() throws Exception {
        operator.finish();
    }

    /** Everything emitted since the last call, as text, in order. */
    public List<String> takeOutput() {
        return JoinTestSupport.takeFormatted(harness.getOutput(), spec.outputType());
    }

    /**
     * The first key column of every key with build rows, as text, read from the state of the join's
     * distribution and layout.
     */
    public List<String> keysWithBuildRows() throws Exception {
        List<Object> keys = new ArrayList<>();
        if (distribution == Distribution.HASH) {
            String stateName =
                    spec.layout == BuildSideLayout.MULTISET
                            ? LateralSnapshotJoinStateNames.BUILD_ROW_MULTISET
                            : LateralSnapshotJoinStateNames.BUILD_ROW;
            try (Stream<Object> stateKeys =
                    operator.getKeyedStateBackend().getKeys(stateName, VoidNamespace.INSTANCE)) {
                stateKeys.forEach(keys::add);
            }
        } else {
            InternalTypeInfo<RowData> keyType = spec.buildKeySelector().getProducedType();
            InternalTypeInfo<RowData> rowType = InternalTypeInfo.of(spec.buildType);
            MapStateDescriptor<RowData, ?> descriptor =
                    spec.layout == BuildSideLayout.MULTISET
                            ? new MapStateDescriptor<>(
                                    LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROWS,
                                    keyType,
                                    new MapTypeInfo<>(rowType, Types.INT))
                            : new MapStateDescriptor<>(
                                    LateralSnapshotJoinStateNames.BROADCAST_BUILD_ROW,
                                    keyType,
                                    rowType);
            for (Map.Entry<RowData, ?> entry :
                    operator.getOperatorStateBackend().getBroadcastState(descriptor).entries()) {
                keys.add(entry.getKey());
            }
        }
        return keys.stream()
                .map(key -> String.valueOf(((RowData) key).getString(0)))
                .collect(Collectors.toList());
    }

    public Metric metric(String name) {
        Metric metric = operator.metrics.get(name);
        if (metric == null) {
            throw new AssertionError("No metric named " + name);
        }
        return metric;
    }

    public long counter(String name) {
        return ((Counter) metric(name)).getCount();
    }

    public Object gauge(String name) {
        return ((Gauge<?>) metric(name)).getValue();
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }

    /**
     * The operator with a metric group that keeps what is registered on it. The keyed harness
     * builds its mock environment itself, so no intercepting task metric group can be handed to it;
     * the runtime context the operator registers its metrics on takes its group from {@link
     * #getMetricGroup()}. Nothing else is changed.
     */
    private static final class MetricsExposingOperator extends LateralSnapshotJoinOperator {
        private static final long serialVersionUID = 1L;

        private final transient InterceptingOperatorMetricGroup metrics =
                new InterceptingOperatorMetricGroup();

        MetricsExposingOperator(LateralSnapshotJoinParameters parameters) {
            super(parameters);
        }

        @Override
        public OperatorMetricGroup getMetricGroup() {
            return metrics;
        }
    }
}
