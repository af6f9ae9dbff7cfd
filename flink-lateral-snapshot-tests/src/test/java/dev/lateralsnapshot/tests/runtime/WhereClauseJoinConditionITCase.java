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

package dev.lateralsnapshot.tests.runtime;

import dev.lateralsnapshot.testutils.environments.StateBackendKind;
import dev.lateralsnapshot.testutils.tables.RateChanges;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.MAX_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.NUM_UNMATCHED_PROBE_RECORDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * WHERE clauses and the join's condition. The comma form with a third table: the WHERE clause above
 * the join with that table holds the SNAPSHOT join's condition, and the join runs on it, at
 * parallelism 2 and matching each order with the rate of its currency only (not with every rate,
 * filtered afterwards). The third table is {@code rates} again, read as a table: the scenario has
 * no other source that keeps running. A WHERE clause that pins the join key to a constant: the
 * optimizer folds the probe's key to the constant, and the join still runs on the equality, at
 * parallelism 2.
 */
class WhereClauseJoinConditionITCase extends MiniClusterTestBase {

    @Test
    void commaFormWithAThirdTableJoinsOnTheWhereClause() throws Exception {
        try (StreamingScenario scenario = scenario(StateBackendKind.HEAP)) {
            runAtFullParallelismUntilTheFlip(
                    scenario,
                    "SELECT o.order_id, o.currency, r.rate + 10 * x.rate FROM orders AS o,"
                            + " LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '1' SECOND) AS r,"
                            + " rates AS x"
                            + " WHERE o.currency = r.currency AND x.currency = o.currency");
            assertThat(scenario.awaitOutput(4))
                    .containsExactlyInAnyOrder(
                            "+I[1, B, 22.0]", "+I[3, A, 11.0]", "+I[4, B, 22.0]", "+I[6, A, 11.0]");
            scenario.awaitMetrics(
                    "the two C orders are counted unmatched",
                    m -> m.sum(NUM_UNMATCHED_PROBE_RECORDS) == 2);
            assertThat(scenario.metrics().max(MAX_JOIN_FAN_OUT)).isEqualTo(1);
        }
    }

    /**
     * The INNER join pinned to A finds A's rate for orders 3 and 6; the LEFT join pinned to C,
     * which has no rate, pads orders 2 and 5.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "JOIN | A | +I[3, A, 1.0] | +I[6, A, 1.0]",
                "LEFT JOIN | C | +I[2, C, null] | +I[5, C, null]"
            })
    void joinKeyPinnedToAConstant(String join, String currency, String first, String second)
            throws Exception {
        try (StreamingScenario scenario = scenario(StateBackendKind.HEAP)) {
            runAtFullParallelismUntilTheFlip(
                    scenario,
                    "SELECT o.order_id, o.currency, r.rate FROM orders AS o "
                            + join
                            + " LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '1' SECOND) AS r"
                            + " ON o.currency = r.currency WHERE o.currency = '"
                            + currency
                            + "'");
            assertThat(scenario.awaitOutput(2))
                    .containsExactlyInAnyOrderElementsOf(List.of(first, second));
        }
    }

    /**
     * Submits the query, checks that the join runs at parallelism 2, emits orders 1 to 6 (B, C, A,
     * B, C, A), drops 001.json (A 1.0, B 2.0 and Z 0.0), and waits until both subtasks flip.
     */
    private static void runAtFullParallelismUntilTheFlip(StreamingScenario scenario, String query)
            throws Exception {
        scenario.submit(query);
        Map<String, Integer> vertices = scenario.vertexParallelism();
        vertices.keySet().removeIf(name -> !name.contains("LateralSnapshotJoin"));
        assertThat(vertices.values()).containsExactly(StreamingScenario.PARALLELISM);

        scenario.emitOrders(1, 6);
        scenario.writeBuildFile("001.json", RateChanges.FILE_001);
        scenario.awaitMetrics("both subtasks flip", m -> m.allEqual(CURRENT_PHASE, 1));
    }
}
