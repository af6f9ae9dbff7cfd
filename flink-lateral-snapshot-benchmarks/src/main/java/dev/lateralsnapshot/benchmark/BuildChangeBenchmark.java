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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cost of applying build changes in the join phase: one shot pushes {@code changes} build
 * changes through {@code processElement2}, with the watermarks that release them, into a fresh
 * operator in the harness on the heap backend. The score is the time of the whole shot; divided by
 * the number of changes it must stay flat as the number grows.
 *
 * <p>Three things keep the sizes comparable:
 *
 * <ul>
 *   <li>A trial starts with an unmeasured shot of 1M changes, so a trial of 250k changes is as
 *       JIT-warm as one of 1M.
 *   <li>The young generation has a fixed size ({@code -Xmn64m}): with G1's adaptive sizing a shot
 *       of 250k changes fits in eden and leaves the copying of its state to a collection after the
 *       shot, while a shot of 1M pays for it, which looks like superlinear cost but is not the
 *       operator's.
 *   <li>Each shot starts on a collected heap ({@code System.gc()} in the unmeasured setup).
 * </ul>
 *
 * <p>Each shot gets freshly generated rows, because the operator resets the row kind of the rows it
 * applies. The heap backend keeps those very objects, which were allocated before the shot; in a
 * job they would arrive in the young generation and cost one more copy each.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn64m", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class BuildChangeBenchmark {

    /** Shapes of a build changelog. */
    public enum Scenario {
        /**
         * One key updated over and over: an insert, then -U/+U pairs, each -U carrying the time of
         * the row it retracts and each +U one millisecond more, a watermark after every pair. An
         * even number of changes is rounded down to the pairs that fit.
         */
        UPDATES_ONE_KEY {
            @Override
            void generate(int changes, List<StreamRecord<RowData>> records, List<Watermark> marks) {
                generateUpdates(changes, records, marks, true);
            }
        },
        /**
         * The same updates released all at once by one watermark at the end: one pending list and
         * one timer per pair, all on one key.
         */
        UPDATES_ONE_KEY_ONE_WATERMARK {
            @Override
            void generate(int changes, List<StreamRecord<RowData>> records, List<Watermark> marks) {
                generateUpdates(changes, records, marks, false);
            }
        },
        /**
         * Inserts of distinct rows on one key, all with the same time, released by one watermark at
         * the end: one pending list of all the changes.
         */
        INSERTS_ONE_KEY_SAME_TIME {
            @Override
            void generate(int changes, List<StreamRecord<RowData>> records, List<Watermark> marks) {
                for (int i = 0; i < changes; i++) {
                    add(records, marks, JoinFixture.buildRow(RowKind.INSERT, 0, "v" + i, 1));
                }
                mark(marks, 1);
            }

            @Override
            long expectedRowsOfKeyZero(int changes, BuildSideLayout layout) {
                return layout == BuildSideLayout.MULTISET ? changes : 1;
            }
        },
        /**
         * Rows leaving one key, as when an update changes the join key: inserts of distinct rows on
         * key 0 at distinct times, released by a watermark; then updates that move each row to a
         * key of its own (the -U on key 0 with the row's time, the +U on the new key), released by
         * one watermark at the end. The -U rows wait on key 0 for a +U that never comes there.
         */
        UPDATES_MOVING_OFF_ONE_KEY {
            @Override
            void generate(int changes, List<StreamRecord<RowData>> records, List<Watermark> marks) {
                int rows = changes / 3;
                for (int i = 0; i < rows; i++) {
                    add(records, marks, JoinFixture.buildRow(RowKind.INSERT, 0, "v" + i, 1 + i));
                }
                mark(marks, rows);
                for (int i = 0; i < rows; i++) {
                    add(
                            records,
                            marks,
                            JoinFixture.buildRow(RowKind.UPDATE_BEFORE, 0, "v" + i, 1 + i));
                    add(
                            records,
                            marks,
                            JoinFixture.buildRow(RowKind.UPDATE_AFTER, 1 + i, "v" + i, rows + 1));
                }
                mark(marks, rows + 1);
            }

            @Override
            long expectedRowsOfKeyZero(int changes, BuildSideLayout layout) {
                return 0;
            }
        },
        /**
         * Inserts on distinct keys, 1000 per millisecond, a watermark after every millisecond: a
         * load spread over the key space.
         */
        INSERTS_SPREAD {
            @Override
            void generate(int changes, List<StreamRecord<RowData>> records, List<Watermark> marks) {
                for (int i = 0; i < changes; i++) {
                    long time = 1 + i / 1000;
                    add(records, marks, JoinFixture.buildRow(RowKind.INSERT, i, "v" + i, time));
                    if (i % 1000 == 999 || i == changes - 1) {
                        mark(marks, time);
                    }
                }
            }
        },
        /**
         * Inserts on distinct keys, each at a time of its own in ascending order, as a snapshot
         * whose rows carry their update times arrives from a topic ordered by them; a watermark
         * after every 10,000 changes, so that as many wait at a time, each time with one key.
         */
        INSERTS_OWN_TIMES {
            @Override
            void generate(int changes, List<StreamRecord<RowData>> records, List<Watermark> marks) {
                for (int i = 0; i < changes; i++) {
                    add(records, marks, JoinFixture.buildRow(RowKind.INSERT, i, "v" + i, 1 + i));
                    if (i % 10_000 == 9_999 || i == changes - 1) {
                        mark(marks, 1 + i);
                    }
                }
            }
        };

        abstract void generate(
                int changes, List<StreamRecord<RowData>> records, List<Watermark> marks);

        /** The build rows key 0 holds after all changes: what a probe row of key 0 must match. */
        long expectedRowsOfKeyZero(int changes, BuildSideLayout layout) {
            return 1;
        }

        private static void generateUpdates(
                int changes,
                List<StreamRecord<RowData>> records,
                List<Watermark> marks,
                boolean markEveryPair) {
            add(records, marks, JoinFixture.buildRow(RowKind.INSERT, 0, "v0", 1));
            long time = 1;
            for (int i = 1; records.size() + 2 <= changes; i++) {
                add(
                        records,
                        marks,
                        JoinFixture.buildRow(RowKind.UPDATE_BEFORE, 0, "v" + (i - 1), time));
                time++;
                add(records, marks, JoinFixture.buildRow(RowKind.UPDATE_AFTER, 0, "v" + i, time));
                if (markEveryPair) {
                    mark(marks, time);
                }
            }
            mark(marks, time);
        }

        private static void add(
                List<StreamRecord<RowData>> records, List<Watermark> marks, RowData row) {
            records.add(new StreamRecord<>(row));
            marks.add(null);
        }

        /** Sends a watermark after the last record added. */
        private static void mark(List<Watermark> marks, long time) {
            marks.set(marks.size() - 1, new Watermark(time));
        }
    }

    /** Changes in the unmeasured shot that starts a trial. */
    private static final int WARM_UP_CHANGES = 1_000_000;

    @Param({
        "UPDATES_ONE_KEY",
        "UPDATES_ONE_KEY_ONE_WATERMARK",
        "INSERTS_ONE_KEY_SAME_TIME",
        "INSERTS_SPREAD",
        "INSERTS_OWN_TIMES",
        "UPDATES_MOVING_OFF_ONE_KEY"
    })
    public Scenario scenario;

    @Param({"250000", "500000", "1000000"})
    public int changes;

    @Param({"MULTISET", "ONE_ROW_PER_KEY"})
    public BuildSideLayout layout;

    private int shotChanges;
    private JoinOutput output;
    private KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness;
    private StreamRecord<RowData>[] records;

    /** The watermark to send after each record, or null. */
    private Watermark[] marks;

    @Setup(Level.Trial)
    public void warmUp() throws Exception {
        prepareShot(WARM_UP_CHANGES);
        apply();
        check();
    }

    @Setup(Level.Invocation)
    public void prepare() throws Exception {
        prepareShot(changes);
    }

    @SuppressWarnings("unchecked")
    private void prepareShot(int n) throws Exception {
        shotChanges = n;
        List<StreamRecord<RowData>> recordList = new ArrayList<>(n);
        List<Watermark> markList = new ArrayList<>(n);
        scenario.generate(n, recordList, markList);
        records = recordList.toArray(new StreamRecord[0]);
        marks = markList.toArray(new Watermark[0]);
        output = JoinOutput.create(JoinOutput.Mode.READ);
        // Loaded at watermark 0: every change is applied in the join phase.
        harness = JoinFixture.openHarness(layout, 0, output);
        harness.processWatermark2(new Watermark(0));
        // The previous shot's operator and rows are garbage now: collect them here, outside the
        // measurement, so that a shot pays only for the garbage it makes itself.
        System.gc();
    }

    @Benchmark
    public int apply() throws Exception {
        for (int i = 0; i < records.length; i++) {
            harness.processElement2(records[i]);
            if (marks[i] != null) {
                harness.processWatermark2(marks[i]);
            }
        }
        return records.length;
    }

    /** Fails unless key 0 ends with the build rows the changes leave it with. */
    @TearDown(Level.Invocation)
    public void check() throws Exception {
        harness.processElement1(new StreamRecord<>(JoinFixture.probeRow(0, "check")));
        long matched = output.drain();
        harness.close();
        long expected = scenario.expectedRowsOfKeyZero(shotChanges, layout);
        if (matched != expected) {
            throw new IllegalStateException(
                    scenario
                            + " with "
                            + layout
                            + ": key 0 matched "
                            + matched
                            + " build rows, expected "
                            + expected);
        }
    }
}
