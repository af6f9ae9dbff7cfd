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
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.TestTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The end of the build input's backlog ends the load phase, with {@code
 * table.exec.lateral-snapshot.load-completed-on-caught-up}: Flink's {@code RecordAttributes} on
 * input 2 reporting a backlog and then none. How the load phase ended is the gauge {@code
 * loadCompletedReason}. The attributes reach the operator combined over the build input's upstream
 * subtasks, by Flink ({@code LateralSnapshotJoinBacklogTaskTest} runs that combination).
 */
class LateralSnapshotJoinBacklogTest extends LateralSnapshotJoinTestBase {

    @TestTemplate
    void endsTheLoadPhaseWhenTheBuildInputsBacklogEnds() throws Exception {
        try (JoinHarness harness = harness(join().loadCompletedOnCaughtUp())) {
            harness.open();
            harness.processRecordAttributes2(backlog(true));
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(10));
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(0);

            harness.processRecordAttributes2(backlog(false));
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(3);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));

            // Joined at once, as in any join phase; the build input's attributes go nowhere.
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o2", "A", 1, 10));
        }
    }

    /**
     * Every change the backlog held has arrived when it ends: all of them are applied at the flip,
     * in time order, also those the build watermark has not reached; later ones wait for it.
     */
    @TestTemplate
    void aBacklogEndAppliesEveryChangeReceivedInTimeOrderWithOrWithoutWatermark() throws Exception {
        JoinSpec spec =
                join().leftOuterJoin()
                        .layout(BuildSideLayout.ONE_ROW_PER_KEY)
                        .loadCompletedOnCaughtUp();
        for (boolean withWatermark : new boolean[] {false, true}) {
            try (JoinHarness harness = harness(spec)) {
                harness.open();
                harness.processRecordAttributes2(backlog(true));
                // In arrival order the delete would find nothing and the insert would stay.
                harness.processElement2(delete("A", 1, 20));
                harness.processElement2(insert("A", 1, 10));
                harness.processElement2(updateAfter("B", 3, 30));
                harness.processElement2(insert("B", 2, 10));
                if (withWatermark) {
                    harness.processWatermark2(watermark(15));
                }
                harness.processElement1(probe("o1", "A"));
                harness.processElement1(probe("o2", "B"));

                harness.processRecordAttributes2(backlog(false));
                assertThat(harness.takeOutput())
                        .as("with a watermark: %s", withWatermark)
                        .containsExactlyInAnyOrder(padded("o1", "A"), joined("o2", "B", 3, 30));
                assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(4L);

                harness.processElement2(insert("A", 4, 40));
                harness.processElement1(probe("o3", "A"));
                harness.processWatermark2(watermark(40));
                harness.processElement1(probe("o4", "A"));
                assertThat(harness.takeOutput())
                        .containsExactly(padded("o3", "A"), joined("o4", "A", 4, 40));
            }
        }
    }

    @TestTemplate
    void aBacklogThatNeverEndsOrNeverStartedKeepsTheLoadPhase() throws Exception {
        try (JoinHarness harness = harness(join().loadCompletedOnCaughtUp())) {
            harness.open();
            // No backlog before: a source that reports none from its start ends nothing.
            harness.processRecordAttributes2(backlog(false));
            harness.processRecordAttributes2(backlog(true));
            harness.processRecordAttributes2(backlog(true));
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(50));
            harness.processElement1(probe("o1", "A"));
            harness.setProcessingTime(3_600_000);

            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(0);
            assertThat(harness.takeOutput()).isEmpty();

            // The other conditions still end it.
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(1);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
        }
    }

    @TestTemplate
    void withoutTheOptionTheBacklogEndsNothing() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processRecordAttributes2(backlog(true));
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processRecordAttributes2(backlog(false));
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            assertThat(harness.takeOutput()).isEmpty();
        }
    }

    /**
     * Only the probe side's attributes leave the join, whose output follows the probe side; the
     * build side's load is no backlog of the join's consumers.
     */
    @TestTemplate
    void passesOnTheProbeSidesAttributesOnly() throws Exception {
        try (JoinHarness harness = harness(join().loadCompletedOnCaughtUp())) {
            harness.open();
            harness.processRecordAttributes2(backlog(true));
            harness.processRecordAttributes1(backlog(true));
            harness.processRecordAttributes2(backlog(false));
            harness.processRecordAttributes1(backlog(false));
            assertThat(harness.takeOutput()).containsExactly("BACKLOG", "NO_BACKLOG");
        }
    }

    /**
     * A snapshot taken after the backlog started keeps that it did: the restored join ends the load
     * phase when the source reports no backlog, whether or not it reports one again first
     * (HybridSource reports again at every start; a source whose last part is running reports
     * none). Until the source reports, the restored join waits for the other conditions.
     */
    @TestTemplate
    void aRestoreInTheLoadPhaseKeepsThatTheBacklogStarted() throws Exception {
        JoinSpec spec = join().loadCompletedOnCaughtUp();
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            harness.processRecordAttributes2(backlog(true));
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            snapshot = harness.snapshot(1L, 1L);
        }
        try (JoinHarness harness = harness(spec)) {
            harness.initializeState(snapshot);
            harness.open();
            harness.setProcessingTime(3_600_000);
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);

            harness.processRecordAttributes2(backlog(false));
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(3);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
        }
    }

    /** A snapshot taken before any backlog invents none: the end of one alone ends nothing. */
    @TestTemplate
    void aRestoreBeforeAnyBacklogInventsNone() throws Exception {
        JoinSpec spec = join().loadCompletedOnCaughtUp();
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            snapshot = harness.snapshot(1L, 1L);
        }
        try (JoinHarness harness = harness(spec)) {
            harness.initializeState(snapshot);
            harness.open();
            harness.processRecordAttributes2(backlog(false));
            assertThat(harness.gauge("currentPhase")).isEqualTo(0);
            harness.processRecordAttributes2(backlog(true));
            harness.processRecordAttributes2(backlog(false));
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
        }
    }

    @TestTemplate
    void theGaugeSaysHowTheLoadPhaseEndedAlsoAfterARestore() throws Exception {
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.setProcessingTime(1000);
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(2);
        }
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(join())) {
            harness.open();
            // The final watermark of a build input that ended.
            harness.processWatermark2(watermark(Long.MAX_VALUE));
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(4);
            snapshot = harness.snapshot(1L, 1L);
        }
        try (JoinHarness harness = harness(join())) {
            harness.initializeState(snapshot);
            harness.open();
            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(4);
        }
    }

    /** The attributes of a join phase change nothing, a new backlog included. */
    @TestTemplate
    void theJoinPhaseIgnoresTheBuildInputsBacklog() throws Exception {
        try (JoinHarness harness = harness(join().loadCompletedOnCaughtUp())) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processRecordAttributes2(backlog(true));
            harness.processRecordAttributes2(backlog(false));
            assertThat(harness.gauge("loadCompletedReason")).isEqualTo(1);
            harness.processElement2(record(RowKind.INSERT, "A", 1, at(150)));
            harness.processWatermark2(watermark(150));
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 150));
        }
    }
}
