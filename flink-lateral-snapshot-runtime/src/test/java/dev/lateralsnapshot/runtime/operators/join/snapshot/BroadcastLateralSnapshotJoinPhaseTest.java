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

import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.testutils.logging.LoggerAuditingExtension;

import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The broadcast join's load phase, flip, drain, and how watermarks leave it. */
class BroadcastLateralSnapshotJoinPhaseTest extends BroadcastLateralSnapshotJoinTestBase {

    @RegisterExtension
    final LoggerAuditingExtension warnings =
            new LoggerAuditingExtension(BroadcastLateralSnapshotJoinOperator.class, Level.WARN);

    @TestTemplate
    void buffersProbeRowsUntilBuildWatermarkReachesLoadCompletedTime() throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, LOAD_COMPLETED_TIME));
            harness.processElement2(insert("C", 3, LOAD_COMPLETED_TIME + 1));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));
            harness.processWatermark1(watermark(5));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME - 1));
            assertThat(harness.takeOutput()).isEmpty();
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(3L);
            assertThat(harness.gauge("currentBuildSideWatermark"))
                    .isEqualTo(LOAD_COMPLETED_TIME - 1);
            assertThat(harness.gauge("currentProbeSideWatermark")).isEqualTo(5L);

            // C's row is later than the watermark and not visible yet; the held probe watermark
            // follows the buffered rows.
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.fireDueTimers();
            List<String> output = harness.takeOutput();
            assertThat(output.subList(0, 2))
                    .containsExactlyInAnyOrder(
                            joined("o1", "A", 1, 10), joined("o2", "B", 2, LOAD_COMPLETED_TIME));
            assertThat(output.subList(2, output.size())).containsExactly("WM(5)");
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(0L);
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);

            harness.processElement1(probe("o4", "A"));
            harness.processWatermark1(watermark(8));
            harness.processWatermark2(watermark(200));
            harness.processElement1(probe("o5", "C"));
            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o4", "A", 1, 10),
                            "WM(8)",
                            joined("o5", "C", 3, LOAD_COMPLETED_TIME + 1));
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(200L);
        }
    }

    @TestTemplate
    void flipsAfterIdleTimeoutCountedFromFirstBuildRecord() throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(join().idleTimeout(1000))) {
            harness.open();
            harness.processElement1(probe("o1", "A"));
            harness.setProcessingTime(10_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            harness.processElement2(insert("A", 1, 10));
            harness.setProcessingTime(10_600);
            harness.processWatermark2(watermark(10));
            // The advance re-arms the clock.
            harness.setProcessingTime(11_599);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.takeOutput()).isEmpty();

            harness.setProcessingTime(11_600);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            assertThat(harness.gauge("loadPhaseDurationMs")).isEqualTo(11_600L);
        }
    }

    @TestTemplate
    void emptyBuildSideMarkedIdleFlipsAfterIdleTimeout() throws Exception {
        try (BroadcastJoinHarness harness =
                broadcastHarness(join().leftOuterJoin().idleTimeout(1000))) {
            harness.open();
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark1(watermark(5));
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            harness.setProcessingTime(10_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            harness.setProcessingTime(11_000);
            assertThat(harness.takeOutput()).containsExactly(padded("o1", "A"), "WM(5)");
        }
        assertThat(warnings.getMessages()).isEmpty();
    }

    @TestTemplate
    void flipWithoutBuildWatermarkAppliesBuildChangesInTimeOrder() throws Exception {
        JoinSpec spec =
                join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY).idleTimeout(1000);
        try (BroadcastJoinHarness harness = broadcastHarness(spec)) {
            harness.open();
            // In arrival order the delete would find nothing and the insert would stay.
            harness.processElement2(delete("A", 1, 20));
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(updateAfter("B", 3, 30));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));

            harness.setProcessingTime(1000);
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(padded("o1", "A"), joined("o2", "B", 3, 30));
            assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(4L);

            // A later change waits for the build watermark, as in any join phase.
            harness.processElement2(insert("A", 4, 40));
            harness.processElement1(probe("o3", "A"));
            harness.processWatermark2(watermark(40));
            harness.processElement1(probe("o4", "A"));
            assertThat(harness.takeOutput())
                    .containsExactly(padded("o3", "A"), joined("o4", "A", 4, 40));
        }
    }

    @TestTemplate
    void forwardsOnlyProbeWatermarkStatusAndOnlyAfterTheDrain() throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark1(watermark(7));
            harness.processWatermarkStatus1(WatermarkStatus.IDLE);
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            assertThat(harness.takeOutput()).isEmpty();

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "A", 1, 10), "WM(7)", "IDLE");
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            harness.processWatermarkStatus1(WatermarkStatus.ACTIVE);
            assertThat(harness.takeOutput()).containsExactly("ACTIVE");
        }
    }

    @TestTemplate
    void drainsInSlicesWithRowsOfBufferedKeysWaitingBehindThem() throws Exception {
        int rowsPerKey = (int) (LateralSnapshotJoinOperator.DRAIN_SLICE_ROWS * 3 / 2);
        try (BroadcastJoinHarness harness = broadcastHarness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement2(insert("C", 3, 10));
            for (int i = 0; i < rowsPerKey; i++) {
                harness.processElement1(probe("A" + i, "A"));
                harness.processElement1(probe("B" + i, "B"));
            }
            harness.processWatermark1(watermark(7));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            List<String> rows = new ArrayList<>(harness.takeOutput());
            assertThat(rows).isNotEmpty().hasSizeLessThan(2 * rowsPerKey).doesNotContain("WM(7)");

            // A still has buffered rows, C never had any.
            harness.processElement1(probe("new-a", "A"));
            harness.processElement1(probe("new-c", "C"));
            harness.processWatermark1(watermark(9));
            // Each probe row taken in during the drain also joins two buffered rows.
            List<String> duringDrain = new ArrayList<>(harness.takeOutput());
            assertThat(duringDrain)
                    .hasSize(1 + 2 * AbstractLateralSnapshotJoinOperator.DRAIN_ROWS_PER_PROBE_ROW)
                    .contains(joined("new-c", "C", 3, 10))
                    .doesNotContain(joined("new-a", "A", 1, 10));
            duringDrain.remove(joined("new-c", "C", 3, 10));
            rows.addAll(duringDrain);

            harness.setProcessingTime(1);
            List<String> rest = harness.takeOutput();
            assertThat(rest).endsWith(joined("new-a", "A", 1, 10), "WM(9)");
            rows.addAll(rest.subList(0, rest.size() - 2));
            assertThat(rows).hasSize(2 * rowsPerKey).doesNotHaveDuplicates();
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(0L);
        }
    }

    @TestTemplate
    void endOfInputJoinsWhatTheDrainHasLeft() throws Exception {
        int rows = (int) (LateralSnapshotJoinOperator.DRAIN_SLICE_ROWS * 2);
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            for (int i = 0; i < rows; i++) {
                harness.processElement1(probe("o" + i, "A"));
            }
            harness.processWatermark1(watermark(Long.MAX_VALUE));
            harness.processWatermark2(watermark(Long.MAX_VALUE));
            List<String> first = harness.takeOutput();

            harness.getOperator().finish();
            List<String> rest = harness.takeOutput();
            assertThat(rest).last().isEqualTo("WM(" + Long.MAX_VALUE + ")");
            assertThat(first.size() + rest.size() - 1).isEqualTo(rows);
        }
    }

    @TestTemplate
    void warnsOnceWhenBuildSidePassesTheRowsWarningThreshold() throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(join(), 2, 1, 2)) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(50));
            assertThat(warnings.getMessages()).isEmpty();

            harness.processElement2(insert("C", 3, 20));
            harness.processElement2(insert("D", 4, 20));
            harness.processWatermark2(watermark(60));
            assertThat(warnings.getMessages())
                    .containsExactly(
                            "The broadcast build side of the LATERAL SNAPSHOT join holds 3 rows in"
                                    + " this subtask, more than the 2 of"
                                    + " 'table.exec.lateral-snapshot.broadcast.build-rows-warning-threshold'."
                                    + " Every one of the 2 subtasks keeps the whole build side on"
                                    + " the heap, whatever the state backend, and writes it into"
                                    + " every checkpoint. For a build side this large set"
                                    + " 'table.exec.lateral-snapshot.build-distribution' = 'hash',"
                                    + " or raise the threshold.");
        }
    }

    @TestTemplate
    void warnsWhenBuildRowsComeWithoutWatermarkAndOfBuildSideIdleFromTheStart() throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(join())) {
            harness.open();
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            harness.processElement2(insert("A", 1, 10));
            harness.setProcessingTime(60_000);
            assertThat(warnings.getMessages())
                    .containsExactly(
                            "The build input of the LATERAL SNAPSHOT join is idle and has sent no"
                                    + " row and no watermark: the load phase ends only when the"
                                    + " build watermark reaches the load completed time 100. If"
                                    + " the build table is empty, set"
                                    + " 'load_completed_idle_timeout' so that an idle build side"
                                    + " ends the load phase.",
                            "The LATERAL SNAPSHOT join has received build rows for 60 s but no"
                                    + " build watermark: no build change is applied and the load"
                                    + " phase cannot end. If a build source subtask has no data"
                                    + " (it holds the watermark back), set"
                                    + " 'table.exec.source.idle-timeout'; otherwise check the"
                                    + " WATERMARK of the build input's on_time column.");
        }
    }
}
