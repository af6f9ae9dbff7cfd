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

import static org.assertj.core.api.Assertions.assertThat;

/** The load phase, the flip to the join phase, and how watermarks leave the operator. */
class LateralSnapshotJoinPhaseTest extends LateralSnapshotJoinTestBase {

    @RegisterExtension
    final LoggerAuditingExtension warnings =
            new LoggerAuditingExtension(LateralSnapshotJoinOperator.class, Level.WARN);

    @TestTemplate
    void buffersProbeRowsInLoadPhase() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(Long.MIN_VALUE);
            assertThat(harness.gauge("currentProbeSideWatermark")).isEqualTo(Long.MIN_VALUE);

            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(50));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processWatermark1(watermark(5));

            // The build row is applied, but nothing is joined before the flip.
            assertThat(harness.takeOutput()).isEmpty();
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(2L);
            assertThat(harness.counter("numUnmatchedProbeRecords")).isZero();
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(50L);
            assertThat(harness.gauge("currentProbeSideWatermark")).isEqualTo(5L);
        }
    }

    @TestTemplate
    void flipsWhenBuildWatermarkReachesLoadCompletedTime() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, LOAD_COMPLETED_TIME));
            harness.processElement2(insert("C", 3, LOAD_COMPLETED_TIME + 1));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME - 1));
            assertThat(harness.takeOutput()).isEmpty();
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            // The changes up to the watermark are applied before the buffered rows are joined;
            // C's row is later than the watermark and not visible yet.
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o1", "A", 1, 10), joined("o2", "B", 2, LOAD_COMPLETED_TIME));
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(0L);
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);

            harness.processElement1(probe("o4", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o4", "A", 1, 10));
        }
    }

    @TestTemplate
    void flipsAfterIdleTimeout() throws Exception {
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(10));
            harness.processElement1(probe("o1", "A"));

            harness.setProcessingTime(999);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.gauge("loadPhaseDurationMs")).isEqualTo(999L);
            assertThat(harness.takeOutput()).isEmpty();

            harness.setProcessingTime(1000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(0L);

            harness.setProcessingTime(5000);
            assertThat(harness.gauge("loadPhaseDurationMs")).isEqualTo(1000L);
        }
    }

    @TestTemplate
    void idleTimeoutIsReArmedByEveryBuildWatermarkAdvance() throws Exception {
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processWatermark2(watermark(10));
            harness.processElement1(probe("o1", "A"));

            harness.setProcessingTime(600);
            harness.processWatermark2(watermark(20));

            // The check due from the first advance finds the second one and waits on.
            harness.setProcessingTime(1000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            // A watermark that does not advance does not re-arm the clock.
            harness.setProcessingTime(1200);
            harness.processWatermark2(watermark(20));
            harness.processWatermark2(watermark(15));

            harness.setProcessingTime(1599);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.takeOutput()).isEmpty();

            harness.setProcessingTime(1600);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
        }
    }

    @TestTemplate
    void idleTimeoutClockStartsWithFirstBuildRecord() throws Exception {
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processElement1(probe("o1", "A"));

            // Nothing from the build side yet: the clock has not started.
            harness.setProcessingTime(10_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            harness.processElement2(insert("A", 1, 10));
            harness.setProcessingTime(10_999);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            // No build watermark came: the flip applies the row the build side sent.
            harness.setProcessingTime(11_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(Long.MIN_VALUE);
        }
    }

    @TestTemplate
    void idleTimeoutClockStartsWithBuildSideIdleStatus() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin().idleTimeout(1000))) {
            harness.open();
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark1(watermark(5));

            harness.setProcessingTime(10_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            // An empty build side that Flink marks idle sends nothing else.
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            harness.setProcessingTime(10_999);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.takeOutput()).isEmpty();

            harness.setProcessingTime(11_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput()).containsExactly(padded("o1", "A"), "WM(5)");
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(0L);
        }
    }

    @TestTemplate
    void buildSideActiveStatusDoesNotStartIdleTimeoutClock() throws Exception {
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            harness.setProcessingTime(10_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
        }
    }

    @TestTemplate
    void flipWithoutBuildWatermarkAppliesBuildChangesInTimeOrder() throws Exception {
        // One row per key, as for an upsert build side: the order of changes decides the row.
        JoinSpec spec =
                join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY).idleTimeout(1000);
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            // In arrival order the delete would find nothing and the insert would stay.
            harness.processElement2(delete("A", 1, 20));
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(updateAfter("B", 3, 30));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));

            harness.setProcessingTime(1000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(padded("o1", "A"), joined("o2", "B", 3, 30));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
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
    void warnsOnceWhenBuildSideIsIdleFromTheStartWithoutIdleTimeout() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            assertThat(warnings.getMessages())
                    .containsExactly(
                            "The build input of the LATERAL SNAPSHOT join is idle and has sent no"
                                    + " row and no watermark: the load phase ends only when the"
                                    + " build watermark reaches the load completed time 100. If"
                                    + " the build table is empty, set"
                                    + " 'load_completed_idle_timeout' so that an idle build side"
                                    + " ends the load phase.");
        }
    }

    @TestTemplate
    void doesNotWarnOfIdleBuildSideThatSentRowsOrHasIdleTimeout() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
        }
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
        }
        assertThat(warnings.getMessages()).isEmpty();
    }

    @TestTemplate
    void warnsWhenBuildRowsComeWithoutWatermark() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.setProcessingTime(59_999);
            assertThat(warnings.getMessages()).isEmpty();
            harness.setProcessingTime(60_000);
            assertThat(warnings.getMessages())
                    .containsExactly(
                            "The LATERAL SNAPSHOT join has received build rows for 60 s but no"
                                    + " build watermark: no build change is applied and the load"
                                    + " phase cannot end. If a build source subtask has no data"
                                    + " (it holds the watermark back), set"
                                    + " 'table.exec.source.idle-timeout'; otherwise check the"
                                    + " WATERMARK of the build input's on_time column.");
        }
    }

    @TestTemplate
    void warningOfMissingBuildWatermarkAfterFlipSaysWhatIsNotApplied() throws Exception {
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.setProcessingTime(60_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(warnings.getMessages())
                    .singleElement()
                    .asString()
                    .contains(
                            "but no build watermark: the build changes received after the flip"
                                    + " are not applied.");
        }
    }

    @TestTemplate
    void staysInLoadPhaseWithoutIdleTimeout() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("Z", 0, 60));
            harness.processWatermark2(watermark(60));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));

            harness.setProcessingTime(3_600_000);
            harness.processElement1(probe("o3", "C"));
            harness.setProcessingTime(7_200_000);

            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.gauge("numProbeSideRecordsBuffered")).isEqualTo(3L);
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(60L);
            assertThat(harness.takeOutput()).isEmpty();
        }
    }

    @TestTemplate
    void forwardsOnlyProbeWatermarkAndOnlyInJoinPhase() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark1(watermark(5));
            harness.processWatermark2(watermark(50));
            harness.processWatermark1(watermark(7));
            assertThat(harness.takeOutput()).isEmpty();

            // The held probe watermark follows the rows that were buffered behind it.
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10), "WM(7)");

            harness.processElement1(probe("o2", "A"));
            harness.processWatermark1(watermark(8));
            harness.processWatermark2(watermark(200));
            assertThat(harness.takeOutput()).containsExactly(joined("o2", "A", 1, 10), "WM(8)");
            assertThat(harness.gauge("currentProbeSideWatermark")).isEqualTo(8L);
            assertThat(harness.gauge("currentBuildSideWatermark")).isEqualTo(200L);
        }
    }

    @TestTemplate
    void forwardsOnlyProbeWatermarkStatusAndOnlyInJoinPhase() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            // Loading: the output holds its watermark back, so it stays active.
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            harness.processWatermarkStatus1(WatermarkStatus.IDLE);
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            assertThat(harness.takeOutput()).isEmpty();

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.takeOutput()).containsExactly("IDLE");
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            harness.processWatermarkStatus1(WatermarkStatus.ACTIVE);
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            assertThat(harness.takeOutput()).containsExactly("ACTIVE");
        }
    }

    @TestTemplate
    void releasesHeldProbeWatermarkAtFlipAlsoWhenProbeSideIsIdle() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark1(watermark(7));
            harness.processWatermarkStatus1(WatermarkStatus.IDLE);
            harness.processWatermarkStatus2(WatermarkStatus.IDLE);
            assertThat(harness.takeOutput()).isEmpty();

            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            // An idle output would drop the watermark: rows, watermark, then the idle status.
            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "A", 1, 10), "WM(7)", "IDLE");
            harness.processWatermarkStatus2(WatermarkStatus.ACTIVE);
            harness.processWatermarkStatus1(WatermarkStatus.ACTIVE);
            assertThat(harness.takeOutput()).containsExactly("ACTIVE");
        }
    }
}
