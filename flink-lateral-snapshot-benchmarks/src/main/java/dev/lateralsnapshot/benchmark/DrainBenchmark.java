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

import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The drain at the flip on the heap backend: one shot flips a fresh operator whose load phase
 * buffered {@link #BUFFERED_ROWS} probe rows, {@code rowsPerKey} per key, over as many build keys,
 * and joins them all, slice by slice as the slices' timers fire. The score is the time of the shot.
 * The load itself is the unmeasured setup; the build rows are applied in it, so that the shot is
 * the drain alone.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class DrainBenchmark {

    static final int BUFFERED_ROWS = 1_000_000;

    static final long BUILD_TIME = 1_000L;
    static final long LOAD_COMPLETED_TIME = 2_000L;

    /** 1: most keys of a large backlog; 4: a few facts per reference row. */
    @Param({"1", "4"})
    public int rowsPerKey;

    private final JoinOutput output = JoinOutput.create(JoinOutput.Mode.READ);
    private KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness;

    @Setup(Level.Iteration)
    public void load() throws Exception {
        harness =
                JoinFixture.openHarness(
                        BuildSideLayout.ONE_ROW_PER_KEY, LOAD_COMPLETED_TIME, output);
        int keys = BUFFERED_ROWS / rowsPerKey;
        for (int k = 0; k < keys; k++) {
            harness.processElement2(
                    new StreamRecord<>(
                            JoinFixture.buildRow(RowKind.INSERT, k, "name-" + k, BUILD_TIME)));
        }
        // Applies the build rows, still in the load phase.
        harness.processWatermark2(new Watermark(BUILD_TIME));
        // The facts of the backlog arrive in no order of their keys.
        List<Integer> order =
                IntStream.range(0, BUFFERED_ROWS)
                        .map(i -> i % keys)
                        .boxed()
                        .collect(Collectors.toList());
        Collections.shuffle(order, new Random(42));
        for (int i = 0; i < BUFFERED_ROWS; i++) {
            harness.processElement1(
                    new StreamRecord<>(JoinFixture.probeRow(order.get(i), "payload-" + i)));
        }
        if (output.drain() != 0) {
            throw new IllegalStateException("The load phase emitted rows.");
        }
        System.gc();
    }

    @Benchmark
    public void drain() throws Exception {
        harness.processWatermark2(new Watermark(LOAD_COMPLETED_TIME));
        // Fires the slices' timers, each registered as due, until the buffer is empty.
        harness.setProcessingTime(harness.getProcessingTime() + 1);
    }

    @TearDown(Level.Iteration)
    public void checkAndClose() throws Exception {
        long joined = output.drain();
        harness.close();
        if (joined != BUFFERED_ROWS) {
            throw new IllegalStateException(
                    "The drain joined " + joined + " rows, expected " + BUFFERED_ROWS);
        }
    }
}
