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

import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.TestTemplate;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which build rows a probe row of the broadcast join matches, where that differs from the keyed
 * join: each subtask joins whatever probe rows reach it against the whole build side, also without
 * an equality predicate. The keyed join's rules for keys, NULLs, conditions and fan-out hold too
 * ({@link BroadcastLateralSnapshotJoinParityTest}).
 */
class BroadcastLateralSnapshotJoinMatchingTest extends BroadcastLateralSnapshotJoinTestBase {

    /** Probe rows {@code (id, amount)}. */
    private static final RowType AMOUNT_PROBE_TYPE =
            RowType.of(new LogicalType[] {STRING, new IntType()}, new String[] {"id", "amount"});

    /** Build rows {@code (band, lo, hi, update_time)}: amounts from lo to hi are in the band. */
    private static final RowType BAND_BUILD_TYPE =
            RowType.of(
                    new LogicalType[] {STRING, new IntType(), new IntType(), new TimestampType(3)},
                    new String[] {"band", "lo", "hi", "update_time"});

    @TestTemplate
    void rangeConditionWithoutEquiKeysJoinsEveryProbeRowOnTheSubtaskItReaches() throws Exception {
        JoinSpec spec =
                join().types(AMOUNT_PROBE_TYPE, BAND_BUILD_TYPE, 3)
                        .noEquiKeys()
                        .leftOuterJoin()
                        .condition(
                                (probeRow, band) ->
                                        probeRow.getInt(1) >= band.getInt(1)
                                                && probeRow.getInt(1) <= band.getInt(2));
        List<BroadcastJoinHarness> subtasks = restoreSubtasks(spec, 2);
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.processElement2(record(RowKind.INSERT, "low", 0, 99, at(10)));
            subtask.processElement2(record(RowKind.INSERT, "high", 100, 999, at(10)));
            subtask.processElement2(record(RowKind.INSERT, "all", 0, 999, at(10)));
        }
        subtasks.get(0).processElement1(record(RowKind.INSERT, "o1", 50));
        subtasks.get(1).processElement1(record(RowKind.INSERT, "o2", 500));
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            subtask.fireDueTimers();
        }
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
        for (BroadcastJoinHarness subtask : subtasks) {
            subtask.close();
        }
    }

    @TestTemplate
    void keyWithoutNullFilterMatchesNull() throws Exception {
        // IS NOT DISTINCT FROM: a NULL key matches a NULL key.
        JoinSpec spec = join().leftOuterJoin().keys(new int[] {1}, new int[] {0}, false);
        try (BroadcastJoinHarness harness = broadcastHarness(spec)) {
            harness.open();
            harness.processElement2(insert(null, 1, 10));
            harness.processElement2(insert("A", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", null));
            harness.processElement1(probe("o2", "B"));

            assertThat(harness.takeOutput())
                    .containsExactly("+I(o1,null,null,1,10)", padded("o2", "B"));
        }
    }

    @TestTemplate
    void nullKeysNeverMatchAndBuildRowsWithThemAreNotKept() throws Exception {
        try (BroadcastJoinHarness harness = broadcastHarness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert(null, 1, 10));
            harness.processElement2(insert("A", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", null));
            harness.processElement1(probe("o2", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(padded("o1", null), joined("o2", "A", 2, 10));
            assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(1L);
            assertThat(
                            ((BroadcastLateralSnapshotJoinOperator) harness.getOperator())
                                    .buildSideRows())
                    .isEqualTo(1L);
        }
    }
}
