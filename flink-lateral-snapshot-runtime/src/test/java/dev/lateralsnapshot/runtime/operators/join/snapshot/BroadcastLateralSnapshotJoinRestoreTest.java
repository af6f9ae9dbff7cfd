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
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

import org.junit.jupiter.api.TestTemplate;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Snapshots and restores of the broadcast join, at the same parallelism and rescaled: every subtask
 * gets every build change, the probe rows are spread over the subtasks, and a restore gives each
 * new subtask one old subtask's copy of the build side and a share of the buffered probe rows.
 */
class BroadcastLateralSnapshotJoinRestoreTest extends BroadcastLateralSnapshotJoinTestBase {

    private static final RowDataSerializer BUILD_SERIALIZER = new RowDataSerializer(BUILD_TYPE);

    @TestTemplate
    void restoresInLoadPhaseAndEmitsBufferedRowsAtFlip() throws Exception {
        OperatorSubtaskState snapshot;
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 60));
            harness.processWatermark2(watermark(50));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));
            snapshot = harness.snapshot(1L, 1L);
        }

        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.initializeState(snapshot);
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            harness.processElement1(probe("o4", "A"));
            // Counts what this run buffered, not what it restored.
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(1L);
            assertThat(harness.takeOutput()).isEmpty();

            // B's row was pending at the snapshot.
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.fireDueTimers();
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o1", "A", 1, 10),
                            joined("o2", "B", 2, 60),
                            joined("o4", "A", 1, 10));
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void restoresInJoinPhaseWithBuildSidePendingChangeAndHeldUpdateBefore() throws Exception {
        OperatorSubtaskState snapshot;
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "A"));
            // Pending at the snapshot: an insert, and a -U waiting for its +U.
            harness.processElement2(insert("B", 2, 150));
            harness.processElement2(updateBefore("A", 1, 10));
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            snapshot = harness.snapshot(1L, 1L);
        }

        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.initializeState(snapshot);
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(Long.MIN_VALUE);
            assertThat(harness.counter("numBuildSideChangesApplied")).isZero();

            // Joined at once against the restored build side, without new build data.
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o2", "A", 1, 10));

            harness.processElement2(updateAfter("A", 2, 160));
            harness.processWatermark2(watermark(155));
            harness.processElement1(probe("o3", "A"));
            harness.processElement1(probe("o4", "B"));
            harness.processWatermark2(watermark(160));
            harness.processElement1(probe("o5", "A"));
            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o3", "A", 1, 10),
                            joined("o4", "B", 2, 150),
                            joined("o5", "A", 2, 160));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    @TestTemplate
    void rescalesTwoToOneToTwoInJoinPhaseWithEveryBuildRowOnEverySubtask() throws Exception {
        JoinSpec spec = join().leftOuterJoin();
        List<BroadcastJoinHarness> subtasks = restoreSubtasks(spec, 2);
        build(subtasks, insert("A", 1, 10));
        build(subtasks, insert("B", 2, 10));
        buildWatermark(subtasks, LOAD_COMPLETED_TIME);
        // Pending at the snapshot: a -U and its +U of A, and an insert of C.
        build(subtasks, updateBefore("A", 1, 10));
        build(subtasks, updateAfter("A", 3, 150));
        build(subtasks, insert("C", 4, 150));
        subtasks.get(0).processElement1(probe("o1", "A"));
        subtasks.get(1).processElement1(probe("o2", "B"));
        assertThat(takeOutputs(subtasks))
                .containsExactly(
                        List.of(joined("o1", "A", 1, 10)), List.of(joined("o2", "B", 2, 10)));
        OperatorSubtaskState[] two = snapshot(subtasks, 1L);

        List<BroadcastJoinHarness> single = restoreSubtasks(spec, 1, two);
        single.get(0).processElement1(probe("o3", "A"));
        buildWatermark(single, 150);
        single.get(0).processElement1(probe("o4", "A"));
        single.get(0).processElement1(probe("o5", "C"));
        build(single, delete("B", 2, 10));
        assertThat(takeOutputs(single))
                .containsExactly(
                        List.of(
                                joined("o3", "A", 1, 10),
                                joined("o4", "A", 3, 150),
                                joined("o5", "C", 4, 150)));
        OperatorSubtaskState[] one = snapshot(single, 2L);

        // The delete of B was pending; both new subtasks have every other row, once.
        subtasks = restoreSubtasks(spec, 2, one);
        buildWatermark(subtasks, 200);
        for (BroadcastJoinHarness subtask : subtasks) {
            for (String key : new String[] {"A", "B", "C"}) {
                subtask.processElement1(probe("p-" + key, key));
            }
        }
        List<String> expected =
                List.of(joined("p-A", "A", 3, 150), padded("p-B", "B"), joined("p-C", "C", 4, 150));
        assertThat(takeOutputs(subtasks)).containsExactly(expected, expected);
        for (BroadcastJoinHarness subtask : subtasks) {
            assertThat(subtask.counter("numUnmatchedBuildRetractions")).isZero();
        }
        close(subtasks);
    }

    @TestTemplate
    void rescalesTwoToOneToTwoInLoadPhaseJoiningEveryBufferedRowOnce() throws Exception {
        JoinSpec spec = join().leftOuterJoin();
        List<BroadcastJoinHarness> subtasks = restoreSubtasks(spec, 2);
        build(subtasks, insert("A", 1, 10));
        build(subtasks, insert("B", 2, 10));
        buildWatermark(subtasks, 50);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String key = i % 2 == 0 ? "A" : "B";
            subtasks.get(i % 2).processElement1(probe("o" + i, key));
            expected.add(joined("o" + i, key, key.equals("A") ? 1 : 2, 10));
        }
        OperatorSubtaskState[] two = snapshot(subtasks, 1L);

        List<BroadcastJoinHarness> single = restoreSubtasks(spec, 1, two);
        assertThat(single.get(0).gauge("currentPhase")).isEqualTo(0);
        single.get(0).processElement1(probe("o10", "C"));
        expected.add(padded("o10", "C"));
        OperatorSubtaskState[] one = snapshot(single, 2L);

        subtasks = restoreSubtasks(spec, 2, one);
        buildWatermark(subtasks, LOAD_COMPLETED_TIME);
        List<List<String>> outputs = takeOutputs(subtasks);
        // Spread over both subtasks, every row once.
        assertThat(outputs.get(0)).isNotEmpty();
        assertThat(outputs.get(1)).isNotEmpty();
        List<String> all = new ArrayList<>(outputs.get(0));
        all.addAll(outputs.get(1));
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected);
        close(subtasks);
    }

    @TestTemplate
    void rowsOfLoadingSubtaskSeeWhatAnIdleFlipOfAnotherSubtaskApplied() throws Exception {
        // Subtask 1 flips by its idle timeout, before any build watermark; subtask 0, whose copy
        // of the build side a restore at parallelism 1 takes, is still loading.
        JoinSpec spec = join().leftOuterJoin().idleTimeout(1000);
        List<BroadcastJoinHarness> subtasks = restoreSubtasks(spec, 2);
        build(subtasks, insert("A", 1, 10));
        subtasks.get(0).processElement1(probe("o1", "A"));
        subtasks.get(1).processElement1(probe("o2", "A"));
        subtasks.get(1).setProcessingTime(1000);
        assertThat(subtasks.get(1).gauge("currentPhase")).isEqualTo(1);
        assertThat(subtasks.get(0).gauge("currentPhase")).isEqualTo(0);
        assertThat(takeOutputs(subtasks))
                .containsExactly(List.of(), List.of(joined("o2", "A", 1, 10)));
        OperatorSubtaskState[] two = snapshot(subtasks, 1L);

        List<BroadcastJoinHarness> single = restoreSubtasks(spec, 1, two);
        assertThat(single.get(0).gauge("currentPhase")).isEqualTo(1);
        // Joined right after the restore, with A's row that subtask 0 had not applied.
        single.get(0).setProcessingTime(1);
        assertThat(takeOutputs(single)).containsExactly(List.of(joined("o1", "A", 1, 10)));
        close(single);
    }

    @TestTemplate
    void refusesToRestoreSnapshotOfTheKeyedJoin() throws Exception {
        OperatorSubtaskState keyedSnapshot = snapshotInJoinPhase(harness(join()));
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            assertThatThrownBy(() -> harness.initializeState(keyedSnapshot))
                    .hasStackTraceContaining(
                            "The LATERAL SNAPSHOT join cannot restore its build side: the"
                                    + " savepoint was taken by a join that partitions both inputs"
                                    + " by the join keys"
                                    + " ('table.exec.lateral-snapshot.build-distribution' ="
                                    + " 'hash'), but this job broadcasts the build side.");
        }
    }

    @TestTemplate
    void keyedJoinRefusesToRestoreSnapshotOfTheBroadcastJoin() throws Exception {
        OperatorSubtaskState broadcastSnapshot = snapshotInJoinPhase(broadcastHarness(join()));
        try (JoinHarness harness = harness(join())) {
            assertThatThrownBy(() -> harness.initializeState(broadcastSnapshot))
                    .hasStackTraceContaining(
                            "The LATERAL SNAPSHOT join cannot restore its build side: the"
                                    + " savepoint was taken by a join that broadcasts the build"
                                    + " side ('table.exec.lateral-snapshot.build-distribution' ="
                                    + " 'broadcast'), but this job partitions both inputs by the"
                                    + " join keys.");
        }
    }

    /** Opens a harness, loads one build row, flips, and snapshots it; closes it. */
    private static OperatorSubtaskState snapshotInJoinPhase(
            TwoInputStreamOperatorTestHarness<RowData, RowData, RowData> harness) throws Exception {
        try (harness) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            return harness.snapshot(1L, 1L);
        }
    }

    // ---- subtasks ----

    private static void build(List<BroadcastJoinHarness> subtasks, StreamRecord<RowData> record)
            throws Exception {
        for (BroadcastJoinHarness subtask : subtasks) {
            // Every subtask gets its own copy, as from the network.
            subtask.processElement2(new StreamRecord<>(copy(record.getValue())));
        }
    }

    private static RowData copy(RowData row) {
        return BUILD_SERIALIZER.copy(row);
    }

    private static void buildWatermark(List<BroadcastJoinHarness> subtasks, long time)
            throws Exception {
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.processWatermark2(watermark(time));
            subtask.fireDueTimers();
        }
    }

    private static List<List<String>> takeOutputs(List<BroadcastJoinHarness> subtasks) {
        List<List<String>> outputs = new ArrayList<>();
        for (BroadcastJoinHarness subtask : subtasks) {
            outputs.add(subtask.takeOutput());
        }
        return outputs;
    }

    private static OperatorSubtaskState[] snapshot(
            List<BroadcastJoinHarness> subtasks, long checkpointId) throws Exception {
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[subtasks.size()];
        for (int i = 0; i < snapshots.length; i++) {
            snapshots[i] = subtasks.get(i).snapshot(checkpointId, checkpointId);
        }
        close(subtasks);
        return snapshots;
    }

    private static void close(List<BroadcastJoinHarness> subtasks) throws Exception {
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.close();
        }
    }
}
