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

import dev.lateralsnapshot.runtime.operators.join.snapshot.JoinSpec.Distribution;
import dev.lateralsnapshot.runtime.operators.join.snapshot.keyed.MultisetRows;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.TestTemplate;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How build changes reach the build side: held until the build watermark passes them, in time
 * order, equal times in arrival order, update pairs whole. The joins are LEFT joins in the join
 * phase (the build watermark passed {@link #LOAD_COMPLETED_TIME}), so a probe row that finds no
 * build row shows up padded, and a half-applied update would show up as a gap or a double match.
 */
class LateralSnapshotJoinBuildSideTest extends LateralSnapshotJoinTestBase {

    @TestTemplate
    void buildRowIsInvisibleUntilBuildWatermarkPassesIt() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(insert("A", 1, 150));

            harness.processWatermark2(watermark(149));
            harness.processElement1(probe("o1", "A"));

            // t <= W: a watermark equal to the row's time releases it.
            harness.processWatermark2(watermark(150));
            harness.processElement1(probe("o2", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(padded("o1", "A"), joined("o2", "A", 1, 150));
            assertThat(harness.counter("numLateBuildSideRecords")).isZero();
        }
    }

    @TestTemplate
    void updatePairIsAtomicWhenWatermarkPassesUpdateBeforeTimeFirst() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(insert("A", 1, 110));
            harness.processElement2(updateBefore("A", 1, 110));
            harness.processElement2(updateAfter("A", 2, 120));
            harness.processElement1(probe("o1", "A"));

            // The watermark passes the -U's own time but not the +U's: the old row stays.
            harness.processWatermark2(watermark(115));
            harness.processElement1(probe("o2", "A"));
            harness.processWatermark2(watermark(119));
            harness.processElement1(probe("o3", "A"));

            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o4", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            padded("o1", "A"),
                            joined("o2", "A", 1, 110),
                            joined("o3", "A", 1, 110),
                            joined("o4", "A", 2, 120));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            assertThat(harness.counter("numLateBuildSideRecords")).isZero();
        }
    }

    @TestTemplate
    void cdcUpdatePairWithUpdateBeforeBelowWatermarkIsAtomic() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            // A CDC update: the -U carries the old row's time, long passed by the watermark.
            harness.processElement2(updateBefore("A", 1, 10));
            harness.processElement2(updateAfter("A", 2, 150));
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark2(watermark(149));
            harness.processElement1(probe("o2", "A"));
            harness.processWatermark2(watermark(150));
            harness.processElement1(probe("o3", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 1, 10),
                            joined("o2", "A", 1, 10),
                            joined("o3", "A", 2, 150));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            // The pair takes the +U's time, which is not late.
            assertThat(harness.counter("numLateBuildSideRecords")).isZero();
        }
    }

    @TestTemplate
    void probeRowsNeverSeeHalfAppliedUpdates() throws Exception {
        // A chain of CDC updates of one key with the watermark trailing the update times by a
        // random delay, a probe row after every record and every watermark.
        Random random = new Random(20260101L);
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 0, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            long previousTime = 10;
            long buildWatermark = LOAD_COMPLETED_TIME;
            int probes = 0;
            for (int version = 1; version <= 200; version++) {
                long time = LOAD_COMPLETED_TIME + 10L * version;
                harness.processElement2(updateBefore("A", version - 1, previousTime));
                harness.processElement1(probe("p" + probes++, "A"));
                harness.processElement2(updateAfter("A", version, time));
                harness.processElement1(probe("p" + probes++, "A"));
                buildWatermark = Math.max(buildWatermark, time - random.nextInt(40));
                harness.processWatermark2(watermark(buildWatermark));
                harness.processElement1(probe("p" + probes++, "A"));
                previousTime = time;
            }

            // One row per probe row, none padded, and no version seen after a newer one.
            List<String> output = harness.takeOutput();
            assertThat(output).hasSize(probes).noneMatch(row -> row.contains("null"));
            int seen = 0;
            for (String row : output) {
                int version = Integer.parseInt(row.split(",")[3]);
                assertThat(version).isGreaterThanOrEqualTo(seen);
                seen = version;
            }
            assertThat(seen).isGreaterThan(190);
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            assertThat(harness.counter("numLateBuildSideRecords")).isZero();
        }
    }

    @TestTemplate
    void updateBeforeWithoutUpdateAfterIsAppliedAloneOnceWatermarkPassesIt() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.processElement2(updateBefore("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark2(watermark(101));
            harness.processElement1(probe("o2", "A"));

            harness.processElement2(updateAfter("A", 2, 120));
            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o3", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 1, 10), padded("o2", "A"), joined("o3", "A", 2, 120));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            // Applied alone at its own time, which the watermark had passed when it arrived; a
            // retraction carries the time of the row it retracts, so it is not counted as late.
            assertThat(harness.counter("numLateBuildSideRecords")).isZero();
        }
    }

    @TestTemplate
    void updatePairStaysWholeWhenAWatermarkAtTheLatestBuildTimeComesBetween() throws Exception {
        // A periodic watermark is the latest time the source has seen; it can come between a -U
        // and its +U when a source emits them as two records.
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(insert("C", 3, 150));

            harness.processElement2(updateBefore("A", 1, 10));
            harness.processWatermark2(watermark(150));
            harness.processElement1(probe("o1", "A"));
            harness.processElement2(updateAfter("A", 2, 160));
            harness.processWatermark2(watermark(160));
            harness.processElement1(probe("o2", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "A", 1, 10), joined("o2", "A", 2, 160));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    @TestTemplate
    void updatesMovingRowsOffAKeyRetractEachRowOnce() throws Exception {
        // Each update changes the join key: its -U waits on the old key for a +U that goes to
        // another key. Every held -U must be applied exactly once, at its own time.
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            for (int i = 0; i < 50; i++) {
                harness.processElement2(insert("A", i, 10 + i));
            }
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            for (int i = 0; i < 50; i++) {
                harness.processElement2(updateBefore("A", i, 10 + i));
                harness.processElement2(updateAfter("B" + i, i, LOAD_COMPLETED_TIME + 1 + i));
            }
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME + 100));
            harness.processElement1(probe("o2", "A"));
            harness.processElement1(probe("o3", "B7"));

            List<String> output = harness.takeOutput();
            // The -U rows wait for a +U on A until the next watermark advance, then go alone.
            assertThat(output).filteredOn(row -> row.startsWith("+I(o1,")).hasSize(50);
            assertThat(output)
                    .containsOnlyOnce(
                            padded("o2", "A"), joined("o3", "B7", 7, LOAD_COMPLETED_TIME + 8));
            assertThat(output).hasSize(52);
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(150L);
        }
    }

    @TestTemplate
    void heldUpdateBeforeOfOneKeyIsNotTakenByChangesOfOtherKeys() throws Exception {
        // A -U waits for the next change of its own key only, whether it is the only held -U of
        // the subtask or one of several keys and times.
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 1, 11));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            // The only held -U, on A; changes of C and D pass it by; A's +U takes it.
            harness.processElement2(updateBefore("A", 1, 10));
            harness.processElement2(insert("C", 1, 101));
            harness.processElement2(updateAfter("D", 1, 102));
            harness.processElement2(updateAfter("A", 2, 103));
            harness.processWatermark2(watermark(103));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));

            // Held -U rows of two keys at once; each key's +U takes its own.
            harness.processElement2(updateBefore("A", 2, 103));
            harness.processElement2(updateBefore("B", 1, 11));
            harness.processElement2(updateAfter("B", 3, 110));
            harness.processElement1(probe("o3", "A"));
            harness.processElement2(updateAfter("A", 3, 111));
            harness.processWatermark2(watermark(111));
            harness.processElement1(probe("o4", "A"));
            harness.processElement1(probe("o5", "B"));
            harness.processElement1(probe("o6", "C"));
            harness.processElement1(probe("o7", "D"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 2, 103),
                            joined("o2", "B", 1, 11),
                            joined("o3", "A", 2, 103),
                            joined("o4", "A", 3, 111),
                            joined("o5", "B", 3, 110),
                            joined("o6", "C", 1, 101),
                            joined("o7", "D", 1, 102));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(10L);
        }
    }

    @TestTemplate
    void deleteRemovesRow() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.processElement1(probe("o1", "B"));
            // A delete carries the time of the row it deletes, long passed here: applied at once.
            harness.processElement2(delete("B", 2, 10));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "B", 2, 10), padded("o2", "B"), joined("o3", "A", 1, 10));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    @TestTemplate
    void countsRetractionsThatFindNoRow() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.processElement2(delete("A", 1, 110));
            harness.processElement2(updateBefore("C", 3, 110));
            harness.processElement2(updateAfter("C", 4, 110));
            // A row of the key, but not this one: a multiset only retracts equal rows.
            harness.processElement2(delete("B", 3, 110));
            harness.processWatermark2(watermark(110));
            harness.processElement1(probe("o1", "B"));
            harness.processElement1(probe("o2", "C"));

            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "B", 2, 10), joined("o2", "C", 4, 110));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isEqualTo(3L);
        }
    }

    @TestTemplate
    void lateBuildChangesAreAppliedAtOnceAndCounted() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(insert("A", 1, 200));
            harness.processWatermark2(watermark(150));
            harness.processElement1(probe("o1", "A"));

            // The watermark has passed it: it is due now, and every pending change (A at 200) is
            // later, so applying it at once keeps the time order.
            harness.processElement2(insert("A", 2, 140));
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.counter("numLateBuildSideRecords")).isEqualTo(1L);

            // Without a time a change comes after everything seen before it: A at 200.
            harness.processElement2(record(RowKind.INSERT, "B", 3, null));
            harness.processElement1(probe("o3", "B"));
            harness.processWatermark2(watermark(200));
            harness.processElement1(probe("o4", "A"));
            harness.processElement1(probe("o5", "B"));

            // Each row names its probe row; the order of A's two build rows is the backend's.
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            padded("o1", "A"),
                            joined("o2", "A", 2, 140),
                            padded("o3", "B"),
                            joined("o4", "A", 1, 200),
                            joined("o4", "A", 2, 140),
                            "+I(o5,B,B,3,null)");
            assertThat(harness.counter("numLateBuildSideRecords")).isEqualTo(1L);
            assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(3L);
        }
    }

    @TestTemplate
    void lateBuildChangeIsPartOfTheBuildSideAtAnIdleFlip() throws Exception {
        // Two rows with one time under a watermark equal to the row time: the second arrives
        // after the watermark reached it. The build side then goes quiet and the join flips by
        // its idle timeout; both rows must be there.
        try (JoinHarness harness = harness(join().idleTimeout(1000))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(10));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.setProcessingTime(1000);

            assertThat(harness.gauge("currentPhase")).isEqualTo(1);
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(joined("o1", "A", 1, 10), joined("o2", "B", 2, 10));
            assertThat(harness.counter("numLateBuildSideRecords")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void changesWithEqualTimeKeepArrivalOrder() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            // An insert and its update, the -U with the insert's time, the +U later.
            harness.processElement2(insert("A", 1, 110));
            harness.processElement2(updateBefore("A", 1, 110));
            harness.processElement2(updateAfter("A", 2, 115));
            // The whole pair at the insert's time.
            harness.processElement2(insert("B", 1, 110));
            harness.processElement2(updateBefore("B", 1, 110));
            harness.processElement2(updateAfter("B", 2, 110));
            // An insert and its delete at the same time.
            harness.processElement2(insert("C", 1, 110));
            harness.processElement2(delete("C", 1, 110));
            // An insert and its -U both pending, the watermark passing them before the +U: it
            // applies the insert, and holds the -U for its +U, as it goes no further than the
            // latest time seen (A's +U).
            harness.processElement2(insert("D", 1, 110));
            harness.processElement2(updateBefore("D", 1, 110));

            harness.processWatermark2(watermark(115));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));
            harness.processElement1(probe("o4", "D"));

            harness.processElement2(updateAfter("D", 2, 120));
            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o5", "D"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 2, 115),
                            joined("o2", "B", 2, 110),
                            padded("o3", "C"),
                            joined("o4", "D", 1, 110),
                            joined("o5", "D", 2, 120));
            // Every retraction found the row it retracts: none was applied before its insert.
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    @TestTemplate
    void oneRowPerKeyLayoutReplacesRowOnUpdateAfterWithoutUpdateBefore() throws Exception {
        try (JoinHarness harness =
                harness(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "A"));

            harness.processElement2(updateAfter("A", 2, 120));
            harness.processElement1(probe("o2", "A"));
            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o3", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 1, 10),
                            joined("o2", "A", 1, 10),
                            joined("o3", "A", 2, 120));
        }
    }

    @TestTemplate
    void oneRowPerKeyLayoutRemovesRowOnDeleteWithOnlyKeyAndNoTime() throws Exception {
        try (JoinHarness harness =
                harness(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.processElement1(probe("o1", "A"));
            // Without a time the delete comes after everything seen before it, all of which the
            // watermark has passed: it is applied at once.
            harness.processElement2(record(RowKind.DELETE, "A", null, null));
            harness.processElement1(probe("o2", "A"));
            harness.processElement1(probe("o3", "B"));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 1, 10), padded("o2", "A"), joined("o3", "B", 2, 10));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
            assertThat(harness.counter("numLateBuildSideRecords")).isZero();
        }
    }

    @TestTemplate
    void deleteWithoutTimeIsAppliedAfterPendingUpdateOfItsKey() throws Exception {
        try (JoinHarness harness =
                harness(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.processElement2(updateAfter("A", 2, 120));
            harness.processElement2(record(RowKind.DELETE, "A", null, null));
            harness.processWatermark2(watermark(110));
            harness.processElement1(probe("o1", "A"));
            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o2", "A"));

            // The delete arrived last, so it wins over the update that was still pending.
            assertThat(harness.takeOutput())
                    .containsExactly(joined("o1", "A", 1, 10), padded("o2", "A"));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }

    @TestTemplate
    void deleteWithoutTimeStaysOrderedAfterPendingUpdateAcrossRestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (JoinHarness harness =
                harness(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(updateAfter("A", 2, 120));
            snapshot = harness.snapshot(1L, 1L);
        }
        try (JoinHarness harness =
                harness(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.initializeState(snapshot);
            harness.open();
            harness.processElement2(record(RowKind.DELETE, "A", null, null));
            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o1", "A"));

            assertThat(harness.takeOutput()).containsExactly(padded("o1", "A"));
        }
    }

    /**
     * Changes that a snapshot wrote into keyed state wait under timers, later ones on the heap
     * without: a watermark applies both in time order, whichever way their arrival went.
     */
    @TestTemplate
    void changesInStateAndOnTheHeapAreAppliedInTimeOrder() throws Exception {
        try (JoinHarness harness =
                harness(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY))) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement2(updateAfter("A", 2, 120));
            harness.processElement2(updateAfter("B", 2, 130));
            harness.processElement2(updateAfter("C", 2, 120));
            assertThat(harness.eventTimeTimers()).isZero();
            harness.snapshot(1L, 1L);
            // A timer per key and time in the keyed state; a broadcast build side has no timers.
            int timersInState = distribution() == Distribution.HASH ? 3 : 0;
            assertThat(harness.eventTimeTimers()).isEqualTo(timersInState);

            harness.processElement2(updateAfter("A", 3, 130));
            harness.processElement2(updateAfter("B", 3, 125));
            harness.processElement2(updateAfter("D", 3, 125));
            assertThat(harness.eventTimeTimers()).isEqualTo(timersInState);
            harness.processWatermark2(watermark(130));
            for (String key : new String[] {"A", "B", "C", "D"}) {
                harness.processElement1(probe("o" + key, key));
            }

            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("oA", "A", 3, 130),
                            joined("oB", "B", 2, 130),
                            joined("oC", "C", 2, 120),
                            joined("oD", "D", 3, 125));
            assertThat(harness.eventTimeTimers()).isZero();
        }
    }

    /**
     * A key keeps its rows inline up to a bound and in a map past it: its rows are the same on
     * either side of the bound, going up and coming back down, equal rows included.
     */
    @TestTemplate
    void keyWithMoreRowsThanFitInlineJoinsEveryRowOnBothSidesOfTheBound() throws Exception {
        int rows = MultisetRows.MAX_INLINE_ROWS + 2;
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 0, 10));
            harness.processElement2(insert("A", 0, 10));
            for (int rate = 1; rate < rows - 1; rate++) {
                harness.processElement2(insert("A", rate, 10));
            }
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput()).hasSize(rows);

            harness.processElement2(insert("A", rows, 110));
            harness.processElement2(delete("A", 0, 10));
            harness.processWatermark2(watermark(110));
            harness.processElement1(probe("o2", "A"));
            List<String> spilled = harness.takeOutput();
            assertThat(spilled).hasSize(rows).contains(joined("o2", "A", rows, 110));
            assertThat(spilled).containsOnlyOnce(joined("o2", "A", 0, 10));

            for (int rate = 0; rate < rows - 1; rate++) {
                harness.processElement2(delete("A", rate, 10));
            }
            harness.processElement1(probe("o3", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o3", "A", rows, 110));

            harness.processElement2(delete("A", rows, 110));
            harness.processElement1(probe("o4", "A"));
            harness.processElement2(insert("A", 7, 120));
            harness.processWatermark2(watermark(120));
            harness.processElement1(probe("o5", "A"));
            assertThat(harness.takeOutput())
                    .containsExactly(padded("o4", "A"), joined("o5", "A", 7, 120));
            assertThat(harness.counter("numUnmatchedBuildRetractions")).isZero();
        }
    }
}
