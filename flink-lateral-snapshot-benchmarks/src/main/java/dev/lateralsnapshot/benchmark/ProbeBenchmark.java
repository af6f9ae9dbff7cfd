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

package dev.lateralsnapshot.benchmark;

import dev.lateralsnapshot.runtime.operators.join.snapshot.BuildSideLayout;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.types.RowKind;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Join-phase probe throughput: probe rows per second through {@code processElement1} of the
 * operator in a {@link KeyedTwoInputStreamOperatorTestHarness} on the heap backend, with 100k build
 * keys loaded, next to a bare loop doing the same join with a {@link HashMap}.
 *
 * <p>Both contenders get the same 1M pre-generated probe rows (uniform keys, 90% of them hit one
 * build row), the same key selector (a generated projection into a {@code BinaryRowData}, copied
 * per row, as the planner builds it), the same {@link TimestampedCollector} and the same {@link
 * JoinOutput}. What the operator adds is exactly its own per-row work: setting the key on the keyed
 * backend (key group), the null-key check, the state read, its metrics.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class ProbeBenchmark {

    static final int BUILD_KEYS = 100_000;
    static final int PROBE_ROWS = 1_000_000;

    /** Probe keys are uniform over this range: 90% of them are build keys. */
    static final int PROBE_KEY_RANGE = BUILD_KEYS * 10 / 9;

    static final int BATCH = 10_000;

    static final long BUILD_TIME = 1_000L;
    static final long LOAD_COMPLETED_TIME = 2_000L;

    /**
     * A contender with its own probe rows and output, set up by one method. (With the probe rows
     * and the output in a separate state that the contenders' setups took as an argument, JMH runs
     * in COPY mode filled the heap with output rows that were never drained.)
     */
    @State(Scope.Thread)
    public abstract static class Contender {

        @Param({"COPY", "READ"})
        public JoinOutput.Mode output;

        JoinOutput joinOutput;
        StreamRecord<RowData>[] records;
        long[] hitsPerBatch;
        int nextBatch;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            joinOutput = JoinOutput.create(output);
            generateProbeRows();
            RowData[] buildRows = new RowData[BUILD_KEYS];
            for (int k = 0; k < BUILD_KEYS; k++) {
                buildRows[k] = JoinFixture.buildRow(RowKind.INSERT, k, "name-" + k, BUILD_TIME);
            }
            load(buildRows);
            checkEveryBatch();
        }

        @SuppressWarnings("unchecked")
        private void generateProbeRows() {
            Random random = new Random(42);
            records = new StreamRecord[PROBE_ROWS];
            hitsPerBatch = new long[PROBE_ROWS / BATCH];
            for (int i = 0; i < PROBE_ROWS; i++) {
                long key = random.nextInt(PROBE_KEY_RANGE);
                records[i] =
                        new StreamRecord<>(
                                JoinFixture.probeRow(key, "payload-" + i), LOAD_COMPLETED_TIME + i);
                if (key < BUILD_KEYS) {
                    hitsPerBatch[i / BATCH]++;
                }
            }
        }

        /** Fails unless one pass over every batch emits one row per hit. */
        private void checkEveryBatch() throws Exception {
            for (int batch = 0; batch < hitsPerBatch.length; batch++) {
                long emitted = joinBatch(batch * BATCH);
                if (emitted != hitsPerBatch[batch]) {
                    throw new IllegalStateException(
                            "Batch "
                                    + batch
                                    + " emitted "
                                    + emitted
                                    + " rows, expected "
                                    + hitsPerBatch[batch]);
                }
            }
        }

        /** Joins the next batch; the batches go round the 1M rows. */
        long joinNextBatch() throws Exception {
            int from = nextBatch * BATCH;
            nextBatch = (nextBatch + 1) % hitsPerBatch.length;
            return joinBatch(from);
        }

        /** Takes the build rows, ready to join. */
        abstract void load(RowData[] buildRows) throws Exception;

        /** Joins the batch of probe rows from the given one and returns the rows emitted. */
        abstract long joinBatch(int from) throws Exception;
    }

    /** An operator in a harness, build side loaded and flipped to the join phase. */
    public abstract static class HarnessJoin extends Contender {

        @Param({"MULTISET", "ONE_ROW_PER_KEY"})
        public BuildSideLayout layout;

        TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> harness;

        /** The opened harness of the operator, emitting to the contender's output. */
        abstract TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> openHarness()
                throws Exception;

        @Override
        void load(RowData[] buildRows) throws Exception {
            harness = openHarness();
            for (RowData row : buildRows) {
                harness.processElement2(new StreamRecord<>(row));
            }
            harness.processWatermark2(new Watermark(LOAD_COMPLETED_TIME));
        }

        @Override
        long joinBatch(int from) throws Exception {
            for (int i = from; i < from + BATCH; i++) {
                harness.processElement1(records[i]);
            }
            return joinOutput.drain();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            harness.close();
        }
    }

    /** The keyed operator, as a task runs it. */
    @State(Scope.Thread)
    public static class OperatorJoin extends HarnessJoin {

        @Override
        TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> openHarness()
                throws Exception {
            return JoinFixture.openHarness(layout, LOAD_COMPLETED_TIME, joinOutput);
        }
    }

    /** The operator with a broadcast build side, as one subtask runs it. */
    @State(Scope.Thread)
    public static class BroadcastOperatorJoin extends HarnessJoin {

        @Override
        TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> openHarness()
                throws Exception {
            return JoinFixture.openBroadcastHarness(layout, LOAD_COMPLETED_TIME, joinOutput);
        }
    }

    /** The same inner join by hand: key projection, HashMap lookup, JoinedRowData, emit. */
    @State(Scope.Thread)
    public static class BareLoopJoin extends Contender {

        KeySelector<RowData, RowData> keySelector;
        Map<RowData, RowData> buildTable;
        JoinedRowData joinedRow;
        TimestampedCollector<RowData> collector;

        @Override
        void load(RowData[] buildRows) throws Exception {
            KeySelector<RowData, RowData> buildKeySelector =
                    JoinFixture.keySelector("BuildKeyProjection");
            buildTable = new HashMap<>();
            for (RowData row : buildRows) {
                buildTable.put(buildKeySelector.getKey(row), row);
            }
            keySelector = JoinFixture.keySelector("ProbeKeyProjection");
            joinedRow = new JoinedRowData();
            collector = new TimestampedCollector<>(joinOutput);
        }

        @Override
        long joinBatch(int from) throws Exception {
            for (int i = from; i < from + BATCH; i++) {
                StreamRecord<RowData> record = records[i];
                RowData probeRow = record.getValue();
                RowData buildRow = buildTable.get(keySelector.getKey(probeRow));
                if (buildRow != null) {
                    collector.setTimestamp(record);
                    collector.collect(joinedRow.replace(probeRow, buildRow));
                }
            }
            return joinOutput.drain();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long operator(OperatorJoin join) throws Exception {
        return join.joinNextBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long broadcastOperator(BroadcastOperatorJoin join) throws Exception {
        return join.joinNextBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long bareLoop(BareLoopJoin join) throws Exception {
        return join.joinNextBatch();
    }
}
