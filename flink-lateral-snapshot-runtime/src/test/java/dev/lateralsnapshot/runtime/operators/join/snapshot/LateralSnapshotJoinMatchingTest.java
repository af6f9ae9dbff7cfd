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

import static org.assertj.core.api.Assertions.assertThat;

/** Which build rows a probe row matches: keys, NULLs, conditions, fan-out, outer padding. */
class LateralSnapshotJoinMatchingTest extends LateralSnapshotJoinTestBase {

    /** Probe rows {@code (id, k1, k2)} against build rows {@code (k1, k2, rate, update_time)}. */
    private static final RowType COMPOSITE_PROBE_TYPE =
            RowType.of(new LogicalType[] {STRING, STRING, new IntType()});

    private static final RowType COMPOSITE_BUILD_TYPE =
            RowType.of(
                    new LogicalType[] {STRING, new IntType(), new IntType(), new TimestampType(3)});

    /** Probe rows {@code (id, currency, amount)}, for conditions between the two sides. */
    private static final RowType AMOUNT_PROBE_TYPE =
            RowType.of(new LogicalType[] {STRING, STRING, new IntType()});

    @TestTemplate
    void leftJoinPadsUnmatchedProbeRowsWithNulls() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "C"));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o3", "C"));

            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o1", "A", 1, 10), padded("o2", "C"), padded("o3", "C"));
            // LEFT misses count too, unlike in Flink 2.4: see docs/moving-to-flink-2.4.md.
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(2L);
        }
    }

    @TestTemplate
    void innerJoinDropsUnmatchedProbeRowsAndCountsThem() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "C"));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o3", "C"));

            assertThat(harness.takeOutput()).containsExactly(joined("o1", "A", 1, 10));
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(2L);
        }
    }

    @TestTemplate
    void nullKeysNeverMatchAndBuildRowsWithThemAreNotKept() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert(null, 1, 10));
            harness.processElement2(insert("A", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", null));
            harness.processElement1(probe("o2", "A"));

            assertThat(harness.takeOutput())
                    .containsExactly(padded("o1", null), joined("o2", "A", 2, 10));
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);
            assertThat(harness.counter("numBuildSideChangesApplied")).isEqualTo(1L);
            assertThat(harness.keysWithBuildRows()).containsExactly("A");
        }
    }

    @TestTemplate
    void compositeKeysMatchOnEveryPart() throws Exception {
        try (JoinHarness harness = harness(compositeJoin(true, true))) {
            harness.open();
            harness.processElement2(record(RowKind.INSERT, "A", 1, 10, at(10)));
            harness.processElement2(record(RowKind.INSERT, "A", 2, 20, at(10)));
            harness.processElement2(record(RowKind.INSERT, "B", 1, 30, at(10)));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(record(RowKind.INSERT, "o1", "A", 1));
            harness.processElement1(record(RowKind.INSERT, "o2", "A", 2));
            harness.processElement1(record(RowKind.INSERT, "o3", "B", 2));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            "+I(o1,A,1,A,1,10,10)",
                            "+I(o2,A,2,A,2,20,10)",
                            "+I(o3,B,2,null,null,null,null)");
        }
    }

    @TestTemplate
    void compositeKeyWithOneNullPartNeverMatches() throws Exception {
        try (JoinHarness harness = harness(compositeJoin(true, true))) {
            harness.open();
            harness.processElement2(record(RowKind.INSERT, "A", null, 10, at(10)));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(record(RowKind.INSERT, "o1", "A", null));

            assertThat(harness.takeOutput()).containsExactly("+I(o1,A,null,null,null,null,null)");
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);
            assertThat(harness.counter("numBuildSideChangesApplied")).isZero();
        }
    }

    @TestTemplate
    void compositeKeyPartWithoutNullFilterMatchesNull() throws Exception {
        // k2 compared with IS NOT DISTINCT FROM, k1 with =.
        try (JoinHarness harness = harness(compositeJoin(true, false))) {
            harness.open();
            harness.processElement2(record(RowKind.INSERT, "A", null, 10, at(10)));
            harness.processElement2(record(RowKind.INSERT, null, 1, 20, at(10)));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(record(RowKind.INSERT, "o1", "A", null));
            harness.processElement1(record(RowKind.INSERT, "o2", null, 1));

            assertThat(harness.takeOutput())
                    .containsExactly(
                            "+I(o1,A,null,A,null,10,10)", "+I(o2,null,1,null,null,null,null)");
        }
    }

    @TestTemplate
    void fansOutOverEveryMatchingBuildRowIncludingDuplicates() throws Exception {
        try (JoinHarness harness = harness(join())) {
            harness.open();
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(0L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(0.0);

            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("A", 2, 10));
            harness.processElement2(insert("B", 3, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "B"));
            harness.processElement1(probe("o3", "C"));

            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            joined("o1", "A", 1, 10),
                            joined("o1", "A", 1, 10),
                            joined("o1", "A", 2, 10),
                            joined("o2", "B", 3, 10));
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(3L);
            // Output rows per probe row: the inner join emits none for the unmatched one.
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(4.0 / 3);

            // Retracting one of two equal rows leaves the other.
            harness.processElement2(delete("A", 1, 10));
            harness.processWatermark2(watermark(101));
            harness.processElement1(probe("o4", "A"));
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(joined("o4", "A", 1, 10), joined("o4", "A", 2, 10));
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(3L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(6.0 / 4);
        }
    }

    @TestTemplate
    void fanOutOfLeftJoinCountsNullPaddedRowAsOne() throws Exception {
        try (JoinHarness harness = harness(join().leftOuterJoin())) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("A", 2, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "C"));
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(1L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(1.0);

            harness.processElement1(probe("o2", "A"));
            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            padded("o1", "C"), joined("o2", "A", 1, 10), joined("o2", "A", 2, 10));
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(2L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(1.5);
        }
    }

    @TestTemplate
    void appliesNonEquiConditionNextToEquiKeys() throws Exception {
        JoinSpec spec =
                join().leftOuterJoin()
                        .types(AMOUNT_PROBE_TYPE, BUILD_TYPE, 2)
                        .condition((probe, build) -> probe.getInt(2) >= build.getInt(1));
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            harness.processElement2(insert("A", 10, 10));
            harness.processElement2(insert("A", 20, 10));
            harness.processElement2(insert("B", 10, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(record(RowKind.INSERT, "o1", "A", 15));
            harness.processElement1(record(RowKind.INSERT, "o2", "A", 5));
            harness.processElement1(record(RowKind.INSERT, "o3", "A", 25));

            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            "+I(o1,A,15,A,10,10)",
                            "+I(o2,A,5,null,null,null)",
                            "+I(o3,A,25,A,10,10)",
                            "+I(o3,A,25,A,20,10)");
            assertThat(harness.counter("numUnmatchedProbeRecords")).isEqualTo(1L);
        }
    }

    @TestTemplate
    void joinsOnConditionAloneWithoutEquiKeys() throws Exception {
        JoinSpec spec =
                join().noEquiKeys()
                        .condition(
                                (probe, build) -> !probe.getString(1).equals(build.getString(0)));
        try (JoinHarness harness = harness(spec)) {
            harness.open();
            harness.processElement2(insert("A", 1, 10));
            harness.processElement2(insert("B", 2, 10));
            harness.processElement2(insert("Z", 0, 10));
            harness.processWatermark2(watermark(LOAD_COMPLETED_TIME));
            harness.processElement1(probe("o1", "A"));
            harness.processElement1(probe("o2", "C"));

            assertThat(harness.takeOutput())
                    .containsExactlyInAnyOrder(
                            "+I(o1,A,B,2,10)",
                            "+I(o1,A,Z,0,10)",
                            "+I(o2,C,A,1,10)",
                            "+I(o2,C,B,2,10)",
                            "+I(o2,C,Z,0,10)");
            assertThat(harness.gauge("maxJoinFanOut")).isEqualTo(3L);
            assertThat(harness.gauge("avgJoinFanOut")).isEqualTo(2.5);
        }
    }

    private static JoinSpec compositeJoin(boolean... filterNullKeys) {
        return join().leftOuterJoin()
                .types(COMPOSITE_PROBE_TYPE, COMPOSITE_BUILD_TYPE, 3)
                .keys(new int[] {1, 2}, new int[] {0, 1}, filterNullKeys);
    }

    @TestTemplate
    void keyWithoutNullFilterMatchesNull() throws Exception {
        // IS NOT DISTINCT FROM: a NULL key matches a NULL key.
        JoinSpec spec = join().leftOuterJoin().keys(new int[] {1}, new int[] {0}, false);
        try (JoinHarness harness = harness(spec)) {
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
}
