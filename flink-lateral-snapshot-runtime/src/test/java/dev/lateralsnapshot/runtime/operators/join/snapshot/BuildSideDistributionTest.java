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

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.testutils.logging.LoggerAuditingExtension;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;

import javax.annotation.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What differs between the two distributions of the build side, each test on the distribution its
 * name says. The hashed join keeps the TTL clocks of its keys in keyed state, an access rounded up
 * to the end of its tenth of the TTL, with the clock paused while the job is stopped; the broadcast
 * join keeps them per subtask on the heap, so that a key evicted on one subtask may live on
 * another, and starts them anew at a restore; it also warns when a subtask's copy of the build side
 * grows past a threshold. Without an equality predicate the hashed join runs on one subtask, the
 * broadcast join on all.
 */
class BuildSideDistributionTest extends BackendTestBase {

    private static final long TTL = 1000L;

    /** Probe rows {@code (id, amount)}. */
    private static final RowType AMOUNT_PROBE_TYPE =
            RowType.of(new LogicalType[] {STRING, new IntType()}, new String[] {"id", "amount"});

    /** Build rows {@code (band, lo, hi, update_time)}: amounts from lo to hi are in the band. */
    private static final RowType BAND_BUILD_TYPE =
            RowType.of(
                    new LogicalType[] {STRING, new IntType(), new IntType(), new TimestampType(3)},
                    new String[] {"band", "lo", "hi", "update_time"});

    @RegisterExtension
    final LoggerAuditingExtension warnings =
            new LoggerAuditingExtension(
                    "dev.lateralsnapshot.runtime.operators.join.snapshot.broadcast.BuildRowsWarning",
                    Level.WARN);

    private static JoinSpec hashJoin() {
        return join().distribution(Distribution.HASH);
    }

    private static JoinSpec broadcastJoin() {
        return join().distribution(Distribution.BROADCAST);
    }

    @TestTemplate
    void hashJoinsTtlClockDoesNotCountTheTimeTheJobIsStopped() throws Exception {
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(hashJoin().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("Z", 0, 10));
            harness.setProcessingTime(500);
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(1000);
            harness.processElement1(probe("o1", "A"));
            harness.setProcessingTime(1200);
            snapshot = harness.snapshot(1L, 1200L);
        }

        // Restored 100 s later. Z has 300 ms of its TTL left, A 800 ms: nothing may expire at
        // the restore, although the timers of the first run are long overdue.
        try (JoinHarness harness = harness(hashJoin().leftOuterJoin().stateTtl(TTL))) {
            harness.setProcessingTime(100_000);
            harness.initializeState(snapshot);
            harness.open();
            harness.setProcessingTime(100_001);
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            harness.setProcessingTime(100_299);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(100_300);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            // o2 touched A at TTL time 1201, kept as 1301: it lives until 2301, that is 101_100
            // here.
            harness.setProcessingTime(101_099);
            harness.processElement1(probe("o3", "A"));
            harness.processElement1(probe("o4", "Z"));
            assertThat(harness.takeOutput())
                    .containsExactly(
                            joined("o2", "A", 1, 10), joined("o3", "A", 1, 10), padded("o4", "Z"));
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void hashJoinStartsNoClockForAChangeToAnEvictedKeyBeforeItIsApplied() throws Exception {
        try (JoinHarness harness = harness(hashJoin().leftOuterJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(TTL);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            // A retraction of the evicted row keeps nothing alive; the insert after it starts the
            // key's clock when it is applied.
            harness.setProcessingTime(1500);
            harness.processElement2(delete("A", 1, 10));
            assertThat(keptAccess(harness, "A")).isNull();
            harness.processElement2(insert("A", 2, 150));
            harness.setProcessingTime(1800);
            harness.processWatermark2(watermark(150));
            assertThat(keptAccess(harness, "A")).isEqualTo(1800L);

            harness.setProcessingTime(2799);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
            harness.setProcessingTime(2800);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(2L);
        }
    }

    @TestTemplate
    void hashJoinWritesAccessesOfKeyAtMostOncePerTenthOfTtl() throws Exception {
        try (JoinHarness harness = harness(hashJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            assertThat(keptAccess(harness, "A")).isZero();

            // Windows of a tenth of the TTL: the first access of a window writes the window's
            // end; the other accesses of the window are not written at all.
            long window = TTL / 10;
            for (long now = 10; now <= 2 * window + 10; now += 10) {
                harness.setProcessingTime(now);
                harness.processElement1(probe("o" + now, "A"));
                assertThat(keptAccess(harness, "A")).isEqualTo((now / window + 1) * window);
            }
            // A build change refreshes the key as a probe row does.
            harness.setProcessingTime(3 * window);
            harness.processElement2(insert("A", 2, 200));
            assertThat(keptAccess(harness, "A")).isEqualTo(4 * window);
            harness.setProcessingTime(3 * window + 10);
            harness.processElement2(insert("A", 3, 200));
            assertThat(keptAccess(harness, "A")).isEqualTo(4 * window);
            assertThat(harness.takeOutput()).hasSize(21);
        }
    }

    @TestTemplate
    void
            hashJoinStartsClockOfKeyCreatedInJoinPhaseAtFirstInsertAndKeepsAccessesToTheEndOfTheirWindow()
                    throws Exception {
        try (JoinHarness harness = harness(hashJoin().stateTtl(TTL))) {
            harness.open();
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));

            harness.setProcessingTime(5000);
            harness.processElement2(insert("C", 3, 150));
            harness.processWatermark2(watermark(150));

            harness.setProcessingTime(5999);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(6000);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);

            // Inserted again after its eviction, the key gets a new clock; the probe row at 6000
            // is kept as the end of its window, 6100.
            harness.processElement2(insert("C", 5, 170));
            harness.processWatermark2(watermark(170));
            harness.processElement1(probe("o1", "C"));
            harness.setProcessingTime(7099);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
            harness.setProcessingTime(7100);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(2L);
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "C", 5, 170));
        }
    }

    @TestTemplate
    void hashJoinEvictsAsSoonAsTheTtlHasPassedTheEndOfTheLastAccessWindow() throws Exception {
        try (JoinHarness harness = harness(hashJoin().stateTtl(TTL))) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(10);
            harness.processElement1(probe("o1", "A"));
            // Not written, but covered by the end of the window kept at 10.
            harness.setProcessingTime(99);
            harness.processElement1(probe("o2", "A"));

            harness.setProcessingTime(99 + TTL - 1);
            assertThat(harness.counter("numStateTtlEvictions")).isZero();
            harness.setProcessingTime(100 + TTL);
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void broadcastJoinEvictsPerSubtaskByThatSubtasksProbeAccess() throws Exception {
        try (JoinSubtasks subtasks =
                subtasks(broadcastJoin().leftOuterJoin().stateTtl(TTL), 2, null)) {
            subtasks.build(insert("A", 1, 10));
            subtasks.build(insert("B", 2, 10));
            subtasks.buildWatermark(LOAD_COMPLETED_TIME);
            JoinHarness probed = subtasks.get(0);
            JoinHarness idle = subtasks.get(1);
            probed.setProcessingTime(500);
            probed.processElement1(probe("o1", "A"));
            probed.setProcessingTime(950);
            probed.processElement1(probe("o2", "A"));

            for (int i = 0; i < 2; i++) {
                JoinHarness subtask = subtasks.get(i);
                subtask.setProcessingTime(TTL);
                subtask.processElement1(probe("p1", "A"));
                subtask.processElement1(probe("p2", "B"));
            }
            assertThat(probed.takeOutput())
                    .containsExactly(
                            joined("o1", "A", 1, 10),
                            joined("o2", "A", 1, 10),
                            joined("p1", "A", 1, 10),
                            padded("p2", "B"));
            assertThat(probed.counter("numStateTtlEvictions")).isEqualTo(1L);
            // A key evicted here is still there on the other subtask.
            assertThat(idle.takeOutput()).containsExactly(padded("p1", "A"), padded("p2", "B"));
            assertThat(idle.counter("numStateTtlEvictions")).isEqualTo(2L);
        }
    }

    @TestTemplate
    void broadcastJoinStartsEveryTtlClockAnewAtARestore() throws Exception {
        JoinSpec spec = broadcastJoin().leftOuterJoin().stateTtl(TTL);
        OperatorSubtaskState snapshot;
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.setProcessingTime(TTL - 1);
            snapshot = harness.snapshot(1L, 1L);
        }

        try (JoinHarness harness = harness(spec)) {
            // Restored long after the key was last accessed.
            harness.setProcessingTime(10 * TTL);
            harness.initializeState(snapshot);
            harness.open();
            harness.setProcessingTime(11 * TTL - 1);
            harness.processElement1(probe("o1", "A"));
            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            assertThat(harness.counter("numStateTtlEvictions")).isZero();

            harness.setProcessingTime(13 * TTL);
            harness.processElement1(probe("o2", "A"));
            assertThat(harness.takeOutput()).containsExactly(padded("o2", "A"));
            assertThat(harness.counter("numStateTtlEvictions")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void broadcastJoinWarnsOnceWhenBuildSidePassesTheRowsWarningThreshold() throws Exception {
        try (JoinHarness harness = harness(broadcastJoin().buildRowsWarningThreshold(2), 2, 1)) {
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
    void broadcastJoinWithoutEquiKeysJoinsEveryProbeRowOnTheSubtaskItReaches() throws Exception {
        JoinSpec spec =
                broadcastJoin()
                        .types(AMOUNT_PROBE_TYPE, BAND_BUILD_TYPE, 3)
                        .noEquiKeys()
                        .leftOuterJoin()
                        .condition(
                                (probeRow, band) ->
                                        probeRow.getInt(1) >= band.getInt(1)
                                                && probeRow.getInt(1) <= band.getInt(2));
        try (JoinSubtasks subtasks = subtasks(spec, 2, null)) {
            subtasks.build(record(RowKind.INSERT, "low", 0, 99, at(10)));
            subtasks.build(record(RowKind.INSERT, "high", 100, 999, at(10)));
            subtasks.build(record(RowKind.INSERT, "all", 0, 999, at(10)));
            subtasks.get(0).processElement1(record(RowKind.INSERT, "o1", 50));
            subtasks.get(1).processElement1(record(RowKind.INSERT, "o2", 500));
            subtasks.buildWatermark(LOAD_COMPLETED_TIME);
            subtasks.get(0).processElement1(record(RowKind.INSERT, "o3", 5000));
            subtasks.get(1).processElement1(record(RowKind.INSERT, "o4", 99));

            assertThat(subtasks.get(0).takeOutput())
                    .containsExactlyInAnyOrder(
                            "+I(o1,50,low,0,99,10)",
                            "+I(o1,50,all,0,999,10)",
                            "+I(o3,5000,null,null,null,null)");
            assertThat(subtasks.get(1).takeOutput())
                    .containsExactlyInAnyOrder(
                            "+I(o2,500,high,100,999,10)",
                            "+I(o2,500,all,0,999,10)",
                            "+I(o4,99,low,0,99,10)",
                            "+I(o4,99,all,0,999,10)");
            assertThat(subtasks.get(0).gauge("maxJoinFanOut")).isEqualTo(2L);
        }
    }

    /** The time the TTL clock keeps for the last access of a build key, read from the state. */
    @Nullable
    private static Long keptAccess(JoinHarness harness, String currency) throws Exception {
        LateralSnapshotJoinOperator operator = harness.operator();
        operator.setCurrentKey(join().probeKeySelector().getKey(probe("", currency).getValue()));
        return operator.getKeyedStateBackend()
                .getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>(
                                LateralSnapshotJoinStateNames.LAST_PROBE_ACCESS, Types.LONG))
                .value();
    }
}
