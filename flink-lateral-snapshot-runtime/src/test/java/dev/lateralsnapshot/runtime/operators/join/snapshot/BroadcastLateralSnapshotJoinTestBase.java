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

import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Base of the broadcast join's harness tests: the joins, rows and backends of {@link
 * LateralSnapshotJoinTestBase}, run by {@link BroadcastLateralSnapshotJoinOperator} on a non-keyed
 * {@link TwoInputStreamOperatorTestHarness}, probe rows on input 1 and build rows on input 2, as
 * the planner connects it: the probe rows of a subtask are whatever reaches it, and every subtask
 * gets every build change.
 */
abstract class BroadcastLateralSnapshotJoinTestBase extends LateralSnapshotJoinTestBase {

    /** The broadcast join with a metric group that keeps what is registered on it. */
    static final class BroadcastMetricsExposingOperator
            extends BroadcastLateralSnapshotJoinOperator {
        private static final long serialVersionUID = 1L;

        private final transient InterceptingOperatorMetricGroup metrics =
                new InterceptingOperatorMetricGroup();

        BroadcastMetricsExposingOperator(
                InternalTypeInfo<RowData> probeType,
                InternalTypeInfo<RowData> buildType,
                RowDataKeySelector probeKeySelector,
                RowDataKeySelector buildKeySelector,
                @Nullable GeneratedJoinCondition generatedCondition,
                boolean leftOuterJoin,
                boolean[] filterNullKeys,
                BuildSideLayout buildSideLayout,
                int buildTimeIndex,
                long loadCompletedTime,
                long loadCompletedIdleTimeout,
                long stateTtl,
                long buildRowsWarningThreshold) {
            super(
                    probeType,
                    buildType,
                    probeKeySelector,
                    buildKeySelector,
                    generatedCondition,
                    leftOuterJoin,
                    filterNullKeys,
                    buildSideLayout,
                    buildTimeIndex,
                    3,
                    loadCompletedTime,
                    loadCompletedIdleTimeout,
                    stateTtl,
                    buildRowsWarningThreshold);
        }

        @Override
        public OperatorMetricGroup getMetricGroup() {
            return metrics;
        }
    }

    /** The Flink harness with the broadcast join of a spec, its output as text, its metrics. */
    static final class BroadcastJoinHarness
            extends TwoInputStreamOperatorTestHarness<RowData, RowData, RowData>
            implements ExposedMetrics {

        private final BroadcastMetricsExposingOperator operator;
        private final RowType outputType;

        private BroadcastJoinHarness(
                BroadcastMetricsExposingOperator operator,
                JoinSpec spec,
                int parallelism,
                int subtaskIndex)
                throws Exception {
            super(operator, MAX_PARALLELISM, parallelism, subtaskIndex);
            this.operator = operator;
            this.outputType = spec.outputType();
        }

        @Override
        public InterceptingOperatorMetricGroup metrics() {
            return operator.metrics;
        }

        /** Everything emitted since the last call, as text, in order. */
        List<String> takeOutput() {
            return takeFormatted(getOutput(), outputType);
        }

        /**
         * Fires the timers due now. The drain at the flip goes on in them, and a slice of it also
         * ends after a time, so on a loaded machine the first slice may not join every buffered
         * row.
         */
        void fireDueTimers() throws Exception {
            setProcessingTime(getProcessingTime());
        }
    }

    /** A harness for a single subtask, set up but not opened. */
    BroadcastJoinHarness broadcastHarness(JoinSpec spec) throws Exception {
        return broadcastHarness(spec, 1, 0, 0);
    }

    /** A harness for one subtask of a parallel join, set up but not opened. */
    BroadcastJoinHarness broadcastHarness(JoinSpec spec, int parallelism, int subtaskIndex)
            throws Exception {
        return broadcastHarness(spec, parallelism, subtaskIndex, 0);
    }

    /** A harness whose subtask warns when its build side holds more rows than the threshold. */
    BroadcastJoinHarness broadcastHarness(
            JoinSpec spec, int parallelism, int subtaskIndex, long buildRowsWarningThreshold)
            throws Exception {
        BroadcastMetricsExposingOperator operator =
                new BroadcastMetricsExposingOperator(
                        InternalTypeInfo.of(spec.probeType),
                        InternalTypeInfo.of(spec.buildType),
                        spec.probeKeySelector(),
                        spec.buildKeySelector(),
                        spec.condition,
                        spec.leftOuterJoin,
                        spec.filterNullKeys,
                        spec.layout,
                        spec.buildTimeIndex,
                        spec.loadCompletedTime,
                        spec.idleTimeout,
                        spec.stateTtl,
                        buildRowsWarningThreshold);
        operator.setFusedCalc(spec.calc);
        BroadcastJoinHarness harness =
                new BroadcastJoinHarness(operator, spec, parallelism, subtaskIndex);
        harness.setStateBackend(createStateBackend());
        // Processing time starts at Long.MIN_VALUE in the harness; timeouts added to it overflow.
        harness.setProcessingTime(0L);
        // The operator reuses its output row; the harness copies what it collects with this.
        harness.setup(new RowDataSerializer(spec.outputType()));
        return harness;
    }

    /**
     * Opens the subtasks of a join at a parallelism, restored from the snapshots of the subtasks of
     * another parallelism (none: a fresh start), as Flink redistributes operator state.
     */
    List<BroadcastJoinHarness> restoreSubtasks(
            JoinSpec spec, int parallelism, OperatorSubtaskState... snapshots) throws Exception {
        List<BroadcastJoinHarness> subtasks = new ArrayList<>();
        OperatorSubtaskState merged =
                snapshots.length == 0
                        ? null
                        : AbstractStreamOperatorTestHarness.repackageState(snapshots);
        for (int i = 0; i < parallelism; i++) {
            BroadcastJoinHarness harness = broadcastHarness(spec, parallelism, i);
            if (merged != null) {
                harness.initializeState(
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                merged, MAX_PARALLELISM, snapshots.length, parallelism, i));
            }
            harness.open();
            subtasks.add(harness);
        }
        return subtasks;
    }
}
