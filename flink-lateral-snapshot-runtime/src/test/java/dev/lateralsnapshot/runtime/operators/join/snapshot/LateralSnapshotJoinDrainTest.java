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

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drain at the flip: the buffered probe rows are joined in slices, the first at once, the
 * others from timers, so that the task takes input, checkpoints and cancellations in between. In
 * the harness the timers of the next slices fire at the next {@code setProcessingTime}.
 */
class LateralSnapshotJoinDrainTest extends LateralSnapshotJoinTestBase {

    /** More probe rows per key than one slice joins. */
    private static final int ROWS_PER_KEY =
            (int) (LateralSnapshotJoinParameters.DRAIN_SLICE_ROWS * 3 / 2);

    private static final String[] KEYS = {"A", "B"};

    @TestTemplate
    void sliceEndsWhenItsTimeIsSpentAfterOneRowAtLeast() throws Exception {
        // No time at all: every slice joins the one row it must, then hands over.
        try (JoinHarness harness = harness(join().drainSliceNanos(0))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            for (int i = 0; i < 3; i++) {
                harness.processElement1(probe("A" + i, "A"));
            }
            harness.processWatermark1(watermark(7));

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.takeOutput()).containsExactly(joined("A0", "A", 1, 10));
            List<String> rest = new ArrayList<>();
            for (long time = 1; time <= 3 && !rest.contains("WM(7)"); time++) {
                harness.setProcessingTime(time);
                rest.addAll(harness.takeOutput());
            }
            assertThat(rest)
                    .containsExactly(joined("A1", "A", 1, 10), joined("A2", "A", 1, 10), "WM(7)");
        }
    }

    @TestTemplate
    void drainsInSlicesAndReleasesProbeWatermarkAfterLastRow() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            bufferProbeRows(harness);
            harness.processWatermark1(watermark(7));

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            // The first slice ran at the flip; the watermark waits for the rest.
            List<String> first = harness.takeOutput();
            assertThat(first).isNotEmpty().doesNotContain("WM(7)");
            assertThat(first.size()).isLessThan(2 * ROWS_PER_KEY);
            assertThat(harness.gauge("numProbeSideRecordsBuffered"))
                    .isEqualTo((long) (2 * ROWS_PER_KEY - first.size()));

            harness.setProcessingTime(1);
            List<String> rest = harness.takeOutput();
            assertThat(rest).last().isEqualTo("WM(7)");
            List<String> rows = new ArrayList<>(first);
            rows.addAll(rest.subList(0, rest.size() - 1));
            assertThat(rows).hasSize(2 * ROWS_PER_KEY).doesNotHaveDuplicates();
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(0L);
            // Each key's rows come out in the order they were buffered.
            for (String key : KEYS) {
                assertThat(idsOf(rows, key)).isSorted();
            }

            harness.processElement1(probe("late", "A"));
            harness.processWatermark1(watermark(8));
            assertThat(harness.takeOutput()).containsExactly(joined("late", "A", 1, 10), "WM(8)");
        }
    }

    @TestTemplate
    void nextSliceIsDueAtOnceNotAMillisecondAfterNow() throws Exception {
        try (JoinHarness harness = harness(join().drainSliceNanos(0))) {
            harness.open();
            harness.setProcessingTime(100);
            bufferProbeRows(harness);

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            // Flink fires a timer due now a millisecond later, and one due before at once.
            assertThat(harness.processingTimers()).contains(99L).doesNotContain(100L, 101L);
        }
    }

    @TestTemplate
    void checkpointBetweenSlicesKeepsExactlyTheRowsNotJoinedYet() throws Exception {
        OperatorSubtaskState checkpoint;
        List<String> beforeCheckpoint;
        try (JoinHarness harness = harness(join())) {
            harness.open();
            bufferProbeRows(harness);
            harness.processWatermark1(watermark(7));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            beforeCheckpoint = harness.takeOutput();

            checkpoint = harness.snapshot(1L, 0L);
            harness.notifyOfCompletedCheckpoint(1L);

            harness.setProcessingTime(1);
            List<String> afterCheckpoint = harness.takeOutput();
            assertThat(afterCheckpoint).last().isEqualTo("WM(7)");
            assertThat(beforeCheckpoint.size() + afterCheckpoint.size() - 1)
                    .isEqualTo(2 * ROWS_PER_KEY);
        }

        // A restore from the checkpoint joins the rows that were not out when it was taken, and
        // only those, in the join phase.
        try (JoinHarness harness = harness(join())) {
            harness.initializeState(checkpoint);
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            harness.setProcessingTime(1);
            harness.setProcessingTime(2);
            List<String> restored = harness.takeOutput();
            assertThat(restored).hasSize(2 * ROWS_PER_KEY - beforeCheckpoint.size());
            Set<String> all = new HashSet<>(beforeCheckpoint);
            all.addAll(restored);
            assertThat(all).hasSize(2 * ROWS_PER_KEY);
        }
    }

    @TestTemplate
    void probeRowsArrivingDuringDrainWaitOnlyBehindRowsOfTheirKey() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("C", 3, 10));
            bufferProbeRows(harness);
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.takeOutput();

            // A and B still have buffered rows, C never had any.
            harness.processElement1(probe("new-a", "A"));
            harness.processElement1(probe("new-b", "B"));
            harness.processElement1(probe("new-c", "C"));
            harness.processWatermark1(watermark(9));
            harness.processWatermarkStatus1(WatermarkStatus.IDLE);
            // Each probe row taken in during the drain also joins two buffered rows, so the
            // buffer shrinks however fast the probe rows come.
            List<String> duringDrain = harness.takeOutput();
            assertThat(duringDrain)
                    .hasSize(1 + 3 * BufferedProbeRows.DRAIN_ROWS_PER_PROBE_ROW)
                    .contains(joined("new-c", "C", 3, 10))
                    .doesNotContain(joined("new-a", "A", 1, 10), joined("new-b", "B", 2, 10));

            harness.setProcessingTime(1);
            List<String> rest = harness.takeOutput();
            assertThat(rest).endsWith("WM(9)", "IDLE");
            assertThat(rest.indexOf(joined("new-a", "A", 1, 10)))
                    .isGreaterThan(lastIndexOfBufferedRow(rest, "A"));
            assertThat(rest.indexOf(joined("new-b", "B", 2, 10)))
                    .isGreaterThan(lastIndexOfBufferedRow(rest, "B"));
        }
    }

    @TestTemplate
    void endOfInputJoinsWhatTheDrainHasLeft() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            bufferProbeRows(harness);
            harness.processWatermark1(watermark(Long.MAX_VALUE));
            harness.processWatermark2(watermark(Long.MAX_VALUE));
            List<String> first = harness.takeOutput();

            harness.finish();
            List<String> rest = harness.takeOutput();
            assertThat(rest).last().isEqualTo("WM(" + Long.MAX_VALUE + ")");
            assertThat(first.size() + rest.size() - 1).isEqualTo(2 * ROWS_PER_KEY);
        }
    }

    @TestTemplate
    void buildChangeBetweenSlicesReachesTheRestOfTheKeysRows() throws Exception {
        for (BuildSideLayout layout : BuildSideLayout.values()) {
            // One row per slice, so that a build change comes between two rows of one key.
            try (JoinHarness harness = harness(join().layout(layout).drainSliceNanos(0))) {
                harness.open();
                harness.processElement2(insert("A", 1, 10));
                for (int i = 0; i < 3; i++) {
                    harness.processElement1(probe("A" + i, "A"));
                }
                harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
                assertThat(harness.takeOutput()).containsExactly(joined("A0", "A", 1, 10));

                harness.processElement2(delete("A", 1, 10));
                harness.processElement2(insert("A", 5, 150));
                harness.processWatermark2(watermark(150));
                harness.setProcessingTime(1);
                harness.setProcessingTime(2);
                assertThat(harness.takeOutput())
                        .as("layout %s", layout)
                        .containsExactly(joined("A1", "A", 5, 150), joined("A2", "A", 5, 150));
            }
        }
    }

    @TestTemplate
    void drainJoinsBufferedRowsWithEveryFormOfAKeysRows() throws Exception {
        // One row, a few rows, and more than the multiset layout keeps in one value; enough keys of
        // each that some are read after the reads that go to the state, through a cursor where
        // the backend has one.
        int[] forms = {1, 3, 40};
        int[] buildRowsPerKey = new int[3 * (BuildSideState.READS_IN_KEY_ORDER_BEFORE_CURSOR + 1)];
        for (int k = 0; k < buildRowsPerKey.length; k++) {
            buildRowsPerKey[k] = forms[k % forms.length];
        }
        try (JoinHarness harness = harness(join().layout(BuildSideLayout.MULTISET))) {
            harness.open();
            for (int k = 0; k < buildRowsPerKey.length; k++) {
                for (int rate = 0; rate < buildRowsPerKey[k]; rate++) {
                    harness.processElement2(insert("K" + k, rate, 10));
                }
                harness.processElement2(insert("K" + k, 0, 10));
            }
            for (int i = 0; i < 4; i++) {
                for (int k = 0; k < buildRowsPerKey.length; k++) {
                    harness.processElement1(probe("K" + k + "-" + i, "K" + k));
                }
            }
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(1);
            List<String> rows = harness.takeOutput();

            for (int k = 0; k < buildRowsPerKey.length; k++) {
                for (int i = 0; i < 4; i++) {
                    String id = "K" + k + "-" + i;
                    // Rate 0 is there twice.
                    List<String> expected = new ArrayList<>();
                    expected.add(joined(id, "K" + k, 0, 10));
                    for (int rate = 0; rate < buildRowsPerKey[k]; rate++) {
                        expected.add(joined(id, "K" + k, rate, 10));
                    }
                    assertThat(rows.stream().filter(row -> row.startsWith("+I(" + id + ",")))
                            .as(id)
                            .containsExactlyInAnyOrderElementsOf(expected);
                }
            }
        }
    }

    @TestTemplate
    void drainReadsEveryKeysCurrentRowsAsBuildChangesComeInBetween() throws Exception {
        // Many keys with one row each, drained two rows per probe row of another key that arrives,
        // and a change of every key's build row whenever a few more keys were drained than the
        // state serves before a cursor over it takes over, where the backend has one: reads
        // through the cursor, and changes that the cursor must see.
        int keysPerChange = BuildSideState.READS_IN_KEY_ORDER_BEFORE_CURSOR + 4;
        int keys = 4 * keysPerChange;
        for (BuildSideLayout layout : BuildSideLayout.values()) {
            try (JoinHarness harness =
                    harness(join().layout(layout).leftOuterJoin().drainSliceNanos(0))) {
                harness.open();
                for (int k = 0; k < keys; k++) {
                    // Every fourth key has no build row.
                    if (k % 4 != 3) {
                        harness.processElement2(insert("K" + k, 1, 10));
                    }
                }
                for (int k = 0; k < keys; k++) {
                    harness.processElement1(probe("P" + k, "K" + k));
                }
                harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

                int rate = 1;
                long time = 10;
                List<String> drained = new ArrayList<>();
                for (int arrived = 0; drained.size() < keys && arrived <= keys; arrived++) {
                    for (String row : harness.takeOutput()) {
                        if (row.equals(padded("Z" + (arrived - 1), "Z"))) {
                            continue;
                        }
                        String id = row.substring(3, row.indexOf(','));
                        String key = "K" + id.substring(1);
                        int k = Integer.parseInt(id.substring(1));
                        assertThat(row)
                                .as("layout %s, after %s rows", layout, drained.size())
                                .isEqualTo(
                                        k % 4 == 3 ? padded(id, key) : joined(id, key, rate, time));
                        drained.add(id);
                    }
                    if (drained.size() >= keysPerChange * rate) {
                        long before = time;
                        time += 10;
                        rate++;
                        for (int k = 0; k < keys; k++) {
                            if (k % 4 != 3) {
                                harness.processElement2(delete("K" + k, rate - 1, before));
                                harness.processElement2(insert("K" + k, rate, time));
                            }
                        }
                        harness.processWatermark2(watermark(LOAD_COMPLETED_TIME + time));
                    }
                    harness.processElement1(probe("Z" + arrived, "Z"));
                }
                assertThat(drained).as("layout %s", layout).hasSize(keys).doesNotHaveDuplicates();
            }
        }
    }

    /** Build rows A 1 and B 2, then {@link #ROWS_PER_KEY} probe rows of each, interleaved. */
    private static void bufferProbeRows(JoinHarness harness) throws Exception {
        harness.processElement2(insert("A", 1, 10));
        harness.processElement2(insert("B", 2, 10));
        for (int i = 0; i < ROWS_PER_KEY; i++) {
            for (String key : KEYS) {
                harness.processElement1(probe(key + i, key));
            }
        }
    }

    private static int lastIndexOfBufferedRow(List<String> rows, String key) {
        int last = -1;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).startsWith("+I(" + key)) {
                last = i;
            }
        }
        return last;
    }

    /** The numbers of the buffered probe rows of a key, in the order they were joined. */
    private static List<Integer> idsOf(List<String> rows, String key) {
        return rows.stream()
                .filter(row -> row.startsWith("+I(" + key))
                .map(row -> Integer.parseInt(row.substring(4, row.indexOf(','))))
                .collect(Collectors.toList());
    }
}
