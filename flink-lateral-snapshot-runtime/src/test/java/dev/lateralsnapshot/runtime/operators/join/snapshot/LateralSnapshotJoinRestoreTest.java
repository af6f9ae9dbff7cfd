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
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;

import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshot and restore through {@link OperatorSubtaskState}: at the same parallelism, and rescaled
 * from two subtasks to one and back the way Flink redistributes key groups and operator state.
 */
class LateralSnapshotJoinRestoreTest extends LateralSnapshotJoinTestBase {

    /** Two join keys that the hash exchange sends to subtask 0 of 2, and two for subtask 1. */
    private static final List<String> KEYS_OF_SUBTASK_0 = keysOfSubtask(0);

    private static final List<String> KEYS_OF_SUBTASK_1 = keysOfSubtask(1);

    @TestTemplate
    void updatePairStaysAtomicWhenTheFirstWatermarkAfterRestoreFollowsTheUpdateBefore()
            throws Exception {
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("Z", 0, 90));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            snapshot = harness.snapshot(1L, 1L);
        }
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.initializeState(snapshot);
            harness.open();
            // The restored job knows no build watermark. A watermark assigner that emits right
            // after the -U (with the old row's time) must not let the -U go without its +U.
            harness.processElement2(updateBefore("A", 1, 10));
            harness.processWatermark2(watermark(10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement2(updateAfter("A", 2, 200));
            harness.processWatermark2(watermark(200));
            harness.processElement1(probe("o2", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "A", 1, 10), joined("o2", "A", 2, 200));
        }
    }

    @TestTemplate
    void restoresInLoadPhaseAndEmitsBufferedRowsAtFlip() throws Exception {
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(50));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));
            harness.processWatermark1(watermark(5));
            snapshot = harness.snapshot(1L, 1L);
        }

        try (JoinHarness harness = harness(join())) {
            harness.initializeState(snapshot);
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            harness.processElement1(probe("o4", "A"));
            // Counts what this run buffered, not what it restored.
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(1L);
            assertThat(harness.takeOutput()).isEmpty();

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o1", "A", 1, 10),
                            joined("o2", "B", 2, 10),
                            joined("o4", "A", 1, 10));
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void aSnapshotRightAfterABuildWatermarkKeepsEveryRowItReleasedOfEachLayout() throws Exception {
        for (BuildSideLayout layout : BuildSideLayout.values()) {
            OperatorSubtaskState snapshot;
            try (JoinHarness harness = harness(join().layout(layout))) {
                harness.open();
                harness.processElement1(probe("o1", "A"));
                harness.processElement1(probe("o2", "B"));
                harness.processElement2(insert("A", 1, 10));
                harness.processElement2(insert("B", 2, 20));
                harness.processElement2(insert("C", 3, 30));
                // Released by the watermark, and neither read nor written since.
                harness.processWatermark2(watermark(50));
                snapshot = harness.snapshot(1L, 1L);
            }

            try (JoinHarness harness = harness(join().layout(layout))) {
                harness.initializeState(snapshot);
                harness.open();
                harness.processElement1(probe("o3", "C"));
                harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
                assertThat(harness.takeOutput())
                        .as("the joins of the build rows of layout %s", layout)
                        .containsExactlyInAnyOrder(
                                joined("o1", "A", 1, 10),
                                joined("o2", "B", 2, 20),
                                joined("o3", "C", 3, 30));
            }
        }
    }

    @TestTemplate
    void restoresInJoinPhaseWithBuildSideAndFreshMetrics() throws Exception {
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "C"));
            harness.processWatermark1(watermark(5));
            // Pending at the snapshot: an insert, and a -U waiting for its +U.
            harness.processElement2(insert("B", 2, 150));
            harness.processElement2(updateBefore("A", 1, 10));
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10), "WM(5)");
            snapshot = harness.snapshot(1L, 1L);
        }

        try (JoinHarness harness = harness(join())) {
            harness.initializeState(snapshot);
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(Long.MIN_VALUE);
            assertThat(harness.gauge("currentProbeSideWatermark")).isEqualTo(Long.MIN_VALUE);
            assertThat(harness.counter("numUnmatchedProbeRecords")).isZero();
            assertThat(harness.counter("numBuildSideChangesApplied")).isZero();
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(0L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(0.0);

            // Joined at once against the restored build side, without new build data.
            harness.processElement1(probe("o3", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o3", "A", 1, 10));

            harness.processElement2(updateAfter("A", 2, 160));
            harness.processWatermark2(watermark(160));
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(160L);
            harness.processElement1(probe("o4", "A"));
            harness.processElement1(probe("o5", "B"));
            assertThat(harness.takeOutput())
                    .containsExactly(joined("o4", "A", 2, 160), joined("o5", "B", 2, 150));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    @TestTemplate
    void rowsOfLoadingSubtaskSeeWhatAFlipWithoutBuildWatermarkApplied() throws Exception {
        String a0 = KEYS_OF_SUBTASK_0.get(0);
        String b0 = KEYS_OF_SUBTASK_1.get(0);
        OperatorSubtaskState[] snapshots;
        try (JoinSubtasks subtasks = subtasks(join().idleTimeout(1000), 2, null)) {
            subtasks.build(insert(a0, 1, 30));
            subtasks.build(insert(b0, 2, 20));
            subtasks.probe(probe("o1", b0));
            // Subtask 0 flips on its idle timeout, before any build watermark, and applies its
            // build side up to time 30; subtask 1 still loads, its change pending.
            subtasks.get(0).setProcessingTime(1000);
            assertThat(subtasks.gauges("currentPhase")).containsExactly(1, 0);
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 1, snapshots)) {
            // The restored rows are joined by a timer, against the changes up to that time.
            subtasks.get(0).setProcessingTime(1);
            assertThat(subtasks.takeOutput()).containsExactly(joined("o1", b0, 2, 20));
        }
    }

    @TestTemplate
    void rescalesTwoToOneToTwoWithoutLosingState() throws Exception {
        String a0 = KEYS_OF_SUBTASK_0.get(0);
        String a1 = KEYS_OF_SUBTASK_0.get(1);
        String b0 = KEYS_OF_SUBTASK_1.get(0);
        String b1 = KEYS_OF_SUBTASK_1.get(1);

        OperatorSubtaskState[] snapshots;
        try (JoinSubtasks subtasks = subtasks(join(), 2, null)) {
            for (String key : new String[] {a0, a1, b0, b1}) {
                subtasks.build(insert(key, 1, 10));
            }
            subtasks.buildWatermark(LOAD_COMPLETED_TIME);
            subtasks.probe(probe("o1", a0));
            subtasks.probe(probe("o2", b0));
            assertThat(subtasks.takeOutput())
                    .containsExactlyInAnyOrder(joined("o1", a0, 1, 10), joined("o2", b0, 1, 10));
            subtasks.build(insert(a1, 2, 150));
            subtasks.build(updateBefore(b1, 1, 10));
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 1, snapshots)) {
            assertThat(subtasks.get(0).gauge("currentPhase")).isEqualTo(1);
            probeEveryKey(subtasks, "p", a0, a1, b0, b1);
            // The -U of b1 pairs with a +U that arrives after the restore.
            subtasks.build(updateAfter(b1, 2, 150));
            subtasks.buildWatermark(150);
            probeEveryKey(subtasks, "q", a0, a1, b0, b1);
            assertThat(subtasks.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("p" + a0, a0, 1, 10),
                            joined("p" + a1, a1, 1, 10),
                            joined("p" + b0, b0, 1, 10),
                            joined("p" + b1, b1, 1, 10),
                            joined("q" + a0, a0, 1, 10),
                            joined("q" + a1, a1, 1, 10),
                            joined("q" + a1, a1, 2, 150),
                            joined("q" + b0, b0, 1, 10),
                            joined("q" + b1, b1, 2, 150));
            assertThat(subtasks.get(0).counter("numUnmatchedBuildRetractions")).isZero();
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 2, snapshots)) {
            assertThat(subtasks.gauges("currentPhase")).containsExactly(1, 1);
            probeEveryKey(subtasks, "r", a0, a1, b0, b1);
            assertThat(subtasks.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("r" + a0, a0, 1, 10),
                            joined("r" + a1, a1, 1, 10),
                            joined("r" + a1, a1, 2, 150),
                            joined("r" + b0, b0, 1, 10),
                            joined("r" + b1, b1, 2, 150));
        }
    }

    @TestTemplate
    void rescalesInLoadPhaseKeepingBufferedRows() throws Exception {
        String a0 = KEYS_OF_SUBTASK_0.get(0);
        String b0 = KEYS_OF_SUBTASK_1.get(0);

        OperatorSubtaskState[] snapshots;
        try (JoinSubtasks subtasks = subtasks(join(), 2, null)) {
            subtasks.build(insert(a0, 1, 10));
            subtasks.build(insert(b0, 2, 10));
            subtasks.buildWatermark(50);
            subtasks.probe(probe("o1", a0));
            subtasks.probe(probe("o2", b0));
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 1, snapshots)) {
            assertThat(subtasks.get(0).gauge("currentPhase")).isEqualTo(0);
            subtasks.probe(probe("o3", b0));
            subtasks.buildWatermark(60);
            assertThat(subtasks.takeOutput()).isEmpty();
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 2, snapshots)) {
            assertThat(subtasks.gauges("currentPhase")).containsExactly(0, 0);
            subtasks.buildWatermark(LOAD_COMPLETED_TIME);
            assertThat(subtasks.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o1", a0, 1, 10),
                            joined("o2", b0, 2, 10),
                            joined("o3", b0, 2, 10));
        }
    }

    @TestTemplate
    void rescalesSubtasksInDifferentPhasesJoiningBufferedRowsAfterRestore() throws Exception {
        String a0 = KEYS_OF_SUBTASK_0.get(0);
        String b0 = KEYS_OF_SUBTASK_1.get(0);

        OperatorSubtaskState[] snapshots = snapshotSubtasksInDifferentPhases(a0, b0);

        try (JoinSubtasks subtasks = subtasks(join(), 1, snapshots)) {
            JoinHarness merged = subtasks.get(0);
            assertThat(merged.gauge("currentPhase")).isEqualTo(1);
            // The rows the loading subtask buffered go out before the next probe watermark,
            // joined as at the flip: with the loading subtask's pending change, which the build
            // watermark the other subtask had reached releases.
            merged.processWatermark1(watermark(7));
            assertDrainedBeforeWatermark(merged.takeOutput(), b0, "WM(7)");
            assertThat(merged.gauge("currentBuildSideWatermark")).isEqualTo(Long.MIN_VALUE);

            subtasks.buildWatermark(LOAD_COMPLETED_TIME);
            probeEveryKey(subtasks, "p", a0, b0);
            assertThat(subtasks.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("p" + a0, a0, 1, 10),
                            joined("p" + b0, b0, 2, 10),
                            joined("p" + b0, b0, 3, 80));
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 2, snapshots)) {
            assertThat(subtasks.gauges("currentPhase")).containsExactly(1, 1);
            subtasks.probeWatermark(8);
            probeEveryKey(subtasks, "q", a0, b0);
            // Nothing buffered comes back a second time.
            assertThat(subtasks.takeOutput())
                    .containsExactlyInAnyOrder(
                            "WM(8)",
                            "WM(8)",
                            joined("q" + a0, a0, 1, 10),
                            joined("q" + b0, b0, 2, 10),
                            joined("q" + b0, b0, 3, 80));
        }
    }

    @TestTemplate
    void joinsRestoredBufferedRowsEvenWhenSnapshotComesFirst() throws Exception {
        String a0 = KEYS_OF_SUBTASK_0.get(0);
        String b0 = KEYS_OF_SUBTASK_1.get(0);

        OperatorSubtaskState[] snapshots = snapshotSubtasksInDifferentPhases(a0, b0);

        // A checkpoint can be taken before the restored subtask gets to join the rows it took
        // over from the loading subtask.
        try (JoinSubtasks subtasks = subtasks(join(), 1, snapshots)) {
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(join(), 1, snapshots)) {
            subtasks.probeWatermark(7);
            // The snapshot in between kept the build watermark the flipped subtask had reached.
            assertDrainedBeforeWatermark(subtasks.takeOutput(), b0, "WM(7)");
        }
    }

    @TestTemplate
    void startsTtlClocksOfKeysRestoredFromLoadingSubtask() throws Exception {
        OperatorSubtaskState[] snapshots = snapshotSubtasksInDifferentPhasesWithTtl();

        try (JoinSubtasks subtasks = subtasks(ttlJoin(), 1, snapshots)) {
            assertKeysExpire(subtasks, KEYS_OF_SUBTASK_0.get(0), KEYS_OF_SUBTASK_1.get(0));
        }
    }

    @TestTemplate
    void startsTtlClocksOfKeysRestoredFromLoadingSubtaskEvenWhenSnapshotComesFirst()
            throws Exception {
        OperatorSubtaskState[] snapshots = snapshotSubtasksInDifferentPhasesWithTtl();
        try (JoinSubtasks subtasks = subtasks(ttlJoin(), 1, snapshots)) {
            snapshots = subtasks.snapshot();
        }

        try (JoinSubtasks subtasks = subtasks(ttlJoin(), 1, snapshots)) {
            assertKeysExpire(subtasks, KEYS_OF_SUBTASK_0.get(0), KEYS_OF_SUBTASK_1.get(0));
        }
    }

    /**
     * Subtask 0 has reached the join phase with a build row; subtask 1 is still loading with a
     * build row, which has no TTL clock yet, and no buffered probe row.
     */
    private OperatorSubtaskState[] snapshotSubtasksInDifferentPhasesWithTtl() throws Exception {
        try (JoinSubtasks subtasks = subtasks(ttlJoin(), 2, null)) {
            subtasks.build(insert(KEYS_OF_SUBTASK_0.get(0), 1, 10));
            subtasks.build(insert(KEYS_OF_SUBTASK_1.get(0), 2, 10));
            subtasks.get(0).processWatermark2(watermark(LOAD_COMPLETED_TIME));
            subtasks.get(1).processWatermark2(watermark(50));
            return subtasks.snapshot();
        }
    }

    private static JoinSpec ttlJoin() {
        return join().leftOuterJoin().stateTtl(1000);
    }

    /** Lets the TTL pass, well after the restore, and checks that both keys were evicted. */
    private static void assertKeysExpire(JoinSubtasks subtasks, String... keys) throws Exception {
        JoinHarness harness = subtasks.get(0);
        harness.setProcessingTime(10);
        harness.setProcessingTime(5000);
        assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(keys.length);
        harness.takeOutput();
        probeEveryKey(subtasks, "x", keys);
        assertThat(subtasks.takeOutput())
                .containsExactlyInAnyOrder(
                        Arrays.stream(keys)
                                .map(key -> padded("x" + key, key))
                                .toArray(String[]::new));
    }

    /**
     * Subtask 0 has reached the join phase and joined a probe row of {@code a0}; subtask 1 is still
     * loading with two probe rows of {@code b0} buffered, one build row applied and one pending.
     */
    private OperatorSubtaskState[] snapshotSubtasksInDifferentPhases(String a0, String b0)
            throws Exception {
        try (JoinSubtasks subtasks = subtasks(join(), 2, null)) {
            subtasks.build(insert(a0, 1, 10));
            subtasks.build(insert(b0, 2, 10));
            subtasks.build(insert(b0, 3, 80));
            subtasks.get(0).processWatermark2(watermark(LOAD_COMPLETED_TIME));
            subtasks.get(1).processWatermark2(watermark(50));
            subtasks.probe(probe("o1", a0));
            subtasks.probe(probe("o2", b0));
            subtasks.probe(probe("o3", b0));
            subtasks.get(1).processWatermark1(watermark(5));
            assertThat(subtasks.gauges("currentPhase")).containsExactly(1, 0);
            assertThat(subtasks.takeOutput()).containsExactly(joined("o1", a0, 1, 10));
            return subtasks.snapshot();
        }
    }

    /**
     * The rows buffered by the loading subtask of {@link #snapshotSubtasksInDifferentPhases}, each
     * joined with both build rows of {@code b0} (a multiset, in no order), then the watermark.
     */
    private static void assertDrainedBeforeWatermark(
            List<String> output, String b0, String watermark) {
        assertThat(output).hasSize(5).last().isEqualTo(watermark);
        assertThat(output.subList(0, 2))
                .containsExactlyInAnyOrder(joined("o2", b0, 2, 10), joined("o2", b0, 3, 80));
        assertThat(output.subList(2, 4))
                .containsExactlyInAnyOrder(joined("o3", b0, 2, 10), joined("o3", b0, 3, 80));
    }

    private static void probeEveryKey(JoinSubtasks subtasks, String idPrefix, String... keys)
            throws Exception {
        for (String key : keys) {
            subtasks.probe(probe(idPrefix + key, key));
        }
    }

    private static List<String> keysOfSubtask(int subtask) {
        RowDataKeySelector selector = join().probeKeySelector();
        List<String> keys = new ArrayList<>();
        for (char c = 'A'; keys.size() < 2; c++) {
            String key = String.valueOf(c);
            if (JoinSubtasks.subtaskOf(selector, probe("", key).getValue(), 2) == subtask) {
                keys.add(key);
            }
        }
        return keys;
    }
}
