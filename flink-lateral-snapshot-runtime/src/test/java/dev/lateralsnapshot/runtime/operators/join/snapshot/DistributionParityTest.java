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

import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.TestTemplate;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The join with a broadcast build side gives the hashed join's rows: one random changelog of the
 * build side (inserts, update pairs with watermarks between their halves, deletes, key-only deletes
 * without a time, late rows, NULL keys), probe rows of every key in both phases, and watermarks,
 * fed step by step to a single subtask of each, whose outputs are compared after every step, with
 * their counters at the end. At parallelism 1 the two joins see the same rows, so every difference
 * is one of semantics.
 */
class DistributionParityTest extends BackendTestBase {

    private static final String[] KEYS = {"A", "B", "C", "D", null};

    private static final String[] COUNTERS = {
        "numUnmatchedProbeRecords",
        "numUnmatchedBuildRetractions",
        "numLateBuildSideRecords",
        "numBuildSideChangesApplied",
        "numStateTtlEvictions"
    };

    private static final String[] GAUGES = {
        "currentPhase",
        "numProbeSideRecordsBuffered",
        "currentBuildSideWatermark",
        "currentProbeSideWatermark",
        "maxJoinFanOut",
        "avgJoinFanOut"
    };

    @TestTemplate
    void innerMultisetJoinGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(join(), 1L);
    }

    @TestTemplate
    void leftMultisetJoinGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(join().leftOuterJoin(), 2L);
    }

    @TestTemplate
    void leftOneRowPerKeyJoinGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(join().leftOuterJoin().layout(BuildSideLayout.ONE_ROW_PER_KEY), 3L);
    }

    @TestTemplate
    void mixedConditionJoinGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(
                join().leftOuterJoin()
                        .condition((probeRow, buildRow) -> buildRow.getInt(1) % 3 != 0),
                4L);
    }

    @TestTemplate
    void joinWithoutEquiKeysGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(
                join().leftOuterJoin()
                        .noEquiKeys()
                        .condition(
                                (probeRow, buildRow) ->
                                        !probeRow.isNullAt(1)
                                                && !buildRow.isNullAt(0)
                                                && probeRow.getString(1)
                                                                .compareTo(buildRow.getString(0))
                                                        > 0),
                5L);
    }

    @TestTemplate
    void joinFlippedByIdleTimeoutWithoutBuildWatermarkGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(
                join().leftOuterJoin().idleTimeout(1000).loadCompletedTime(Long.MAX_VALUE), 6L);
    }

    @TestTemplate
    void joinWithStateTtlGivesTheKeyedJoinsRows() throws Exception {
        assertSameRows(join().leftOuterJoin().stateTtl(100), 7L);
        assertSameRows(join().leftOuterJoin().noEquiKeys().stateTtl(100), 8L);
    }

    private void assertSameRows(JoinSpec spec, long seed) throws Exception {
        List<Step> steps = randomSteps(new Random(seed), spec.layout, spec.idleTimeout > 0);
        try (JoinHarness keyed = harness(spec.distribution(Distribution.HASH));
                JoinHarness broadcast = harness(spec.distribution(Distribution.BROADCAST))) {
            keyed.open();
            broadcast.open();
            int joinedRows = 0;
            for (int i = 0; i < steps.size(); i++) {
                steps.get(i).apply(keyed);
                steps.get(i).apply(broadcast);
                finishDrain(keyed);
                finishDrain(broadcast);
                List<String> expected = keyed.takeOutput();
                assertThat(broadcast.takeOutput())
                        .as("output of step %s", i)
                        .containsExactlyInAnyOrderElementsOf(expected);
                joinedRows += expected.size();
            }
            for (String counter : COUNTERS) {
                assertThat(broadcast.counter(counter))
                        .as(counter)
                        .isEqualTo(keyed.counter(counter));
            }
            for (String gauge : GAUGES) {
                assertThat(broadcast.gauge(gauge)).as(gauge).isEqualTo(keyed.gauge(gauge));
            }
            // The changelog reaches both phases and every kind of row.
            assertThat(keyed.gauge("currentPhase")).isEqualTo(1);
            assertThat(joinedRows).isGreaterThan(200);
            assertThat(keyed.counter("numBuildSideChangesApplied")).isGreaterThan(200L);
            if (spec.stateTtl > 0) {
                assertThat(keyed.counter("numStateTtlEvictions")).isPositive();
            }
        }
    }

    /**
     * Fires the timers of the drain's next slices until none is left. A slice also ends after a
     * time, so under load one join could drain further than the other within a step, and a probe
     * row that waits behind its key's buffered rows in one is joined at once in the other.
     */
    private static void finishDrain(JoinHarness harness) throws Exception {
        while ((int) harness.gauge("currentPhase") == 1
                && (long) harness.gauge("numProbeSideRecordsBuffered") > 0) {
            harness.setProcessingTime(harness.getProcessingTime());
        }
    }

    /** One input element or a move of the processing time, for either harness. */
    @FunctionalInterface
    private interface Step {
        void apply(JoinHarness harness) throws Exception;
    }

    /**
     * A changelog that a build table of rows {@code (currency, rate, update_time)} could send: a
     * retraction retracts a row that is there, at that row's time; with one row per key, an insert
     * comes only for a key without row. Rates are unique, so every row is another row.
     */
    private static List<Step> randomSteps(Random random, BuildSideLayout layout, boolean idle) {
        List<Step> steps = new ArrayList<>();
        Map<String, List<Object[]>> rowsByKey = new HashMap<>();
        long maxTime = 0;
        long watermark = 0;
        long processingTime = 0;
        int rate = 0;
        for (int i = 0; i < 1200; i++) {
            String key = KEYS[random.nextInt(KEYS.length)];
            List<Object[]> rows =
                    rowsByKey.computeIfAbsent(String.valueOf(key), k -> new ArrayList<>());
            int action = random.nextInt(10);
            if (action < 3) {
                String id = "p" + i;
                steps.add(harness -> harness.processElement1(probe(id, key)));
            } else if (action < 5 && (layout == BuildSideLayout.MULTISET || rows.isEmpty())) {
                // Now and then a row later than the watermark already is.
                long time = Math.max(1, watermark + random.nextInt(30) - 5);
                maxTime = Math.max(maxTime, time);
                Object[] row = {key, ++rate, time};
                rows.add(row);
                steps.add(buildStep(RowKind.INSERT, row));
            } else if (action < 7 && !rows.isEmpty()) {
                Object[] old = rows.remove(random.nextInt(rows.size()));
                long time = Math.max((long) old[2], watermark) + 1 + random.nextInt(20);
                maxTime = Math.max(maxTime, time);
                Object[] row = {key, ++rate, time};
                rows.add(row);
                steps.add(buildStep(RowKind.UPDATE_BEFORE, old));
                if (random.nextInt(4) == 0) {
                    long between = watermark + random.nextInt(10);
                    watermark = Math.max(watermark, between);
                    steps.add(harness -> harness.processWatermark2(watermark(between)));
                }
                steps.add(buildStep(RowKind.UPDATE_AFTER, row));
            } else if (action < 8 && !rows.isEmpty()) {
                Object[] deleted = rows.remove(random.nextInt(rows.size()));
                if (layout == BuildSideLayout.ONE_ROW_PER_KEY && random.nextBoolean()) {
                    // An upsert source's delete may carry the key alone, without a time.
                    steps.add(
                            harness ->
                                    harness.processElement2(
                                            record(RowKind.DELETE, key, null, null)));
                } else {
                    steps.add(buildStep(RowKind.DELETE, deleted));
                }
            } else if (action < 9) {
                long next = watermark + random.nextInt(idle && i < 600 ? 1 : 25);
                if (!idle || i >= 600) {
                    watermark = next;
                    steps.add(harness -> harness.processWatermark2(watermark(next)));
                }
                long probeWatermark = next / 2;
                steps.add(harness -> harness.processWatermark1(watermark(probeWatermark)));
            } else {
                long time = processingTime += random.nextInt(400);
                steps.add(harness -> harness.setProcessingTime(time));
            }
        }
        return steps;
    }

    private static Step buildStep(RowKind kind, Object[] row) {
        @Nullable String key = (String) row[0];
        int rate = (int) row[1];
        long time = (long) row[2];
        return harness -> harness.processElement2(record(kind, key, rate, at(time)));
    }
}
