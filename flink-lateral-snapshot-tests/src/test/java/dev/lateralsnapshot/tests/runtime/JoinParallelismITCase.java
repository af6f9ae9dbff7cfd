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

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.AVG_JOIN_FAN_OUT;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.CURRENT_PHASE;
import static dev.lateralsnapshot.testutils.metrics.JoinMetrics.MAX_JOIN_FAN_OUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Join predicates and the parallelism they allow (docs/lateral-snapshot-join.md, "Join conditions
 * and parallelism"), at default parallelism 2, on the heap and on the RocksDB state backend.
 */
class JoinParallelismITCase extends MiniClusterTestBase {

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void mixedEqualityAndNonEqualityPredicateRunsAtFullParallelism(StateBackendKind backend)
            throws Exception {
        try (StreamingScenario scenario = scenario(backend)) {
            scenario.submit(
                    "SELECT o.order_id, o.currency, r.rate FROM orders AS o"
                            + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '1' SECOND) AS r"
                            + " ON o.currency = r.currency AND o.order_id >= 0");
            assertThat(vertices(scenario, "LateralSnapshotJoin").values())
                    .containsExactly(StreamingScenario.PARALLELISM);
            assertThat(scenario.metrics().subtasks()).containsExactly(0, 1);

            scenario.emitOrders(1, 6);
            scenario.writeBuildFile("001.json", RateChanges.FILE_001);
            scenario.awaitMetrics("both subtasks flip", m -> m.allEqual(CURRENT_PHASE, 1));
            assertThat(scenario.awaitOutput(4))
                    .containsExactlyInAnyOrder(
                            "+I[1, B, 2.0]", "+I[3, A, 1.0]", "+I[4, B, 2.0]", "+I[6, A, 1.0]");
        }
    }

    @ParameterizedTest
    @EnumSource(StateBackendKind.class)
    void withoutEqualityPredicateTheJoinRunsOnOneSubtask(StateBackendKind backend)
            throws Exception {
        try (StreamingScenario scenario = scenario(backend)) {
            scenario.submit(
                    "SELECT o.order_id, r.currency, r.rate FROM orders AS o"
                            + " JOIN LATERAL SNAPSHOT(input => TABLE rates,"
                            + " on_time => DESCRIPTOR(update_time),"
                            + " load_completed_idle_timeout => INTERVAL '1' SECOND) AS r"
                            + " ON o.currency <> r.currency");
            assertThat(vertices(scenario, "LateralSnapshotJoin").values()).containsExactly(1);
            assertThat(vertices(scenario, "Source: ").values())
                    .containsExactly(StreamingScenario.PARALLELISM, StreamingScenario.PARALLELISM);
            assertThat(scenario.metrics().subtasks()).containsExactly(0);

            scenario.emitOrders(1, 6);
            scenario.writeBuildFile("001.json", RateChanges.FILE_001);
            scenario.awaitMetrics("the join flips", m -> m.allEqual(CURRENT_PHASE, 1));
            // Each order meets every other currency, the dummy Z row included.
            assertThat(scenario.awaitOutput(14))
                    .containsExactlyInAnyOrder(
                            "+I[1, A, 1.0]",
                            "+I[1, Z, 0.0]",
                            "+I[2, A, 1.0]",
                            "+I[2, B, 2.0]",
                            "+I[2, Z, 0.0]",
                            "+I[3, B, 2.0]",
                            "+I[3, Z, 0.0]",
                            "+I[4, A, 1.0]",
                            "+I[4, Z, 0.0]",
                            "+I[5, A, 1.0]",
                            "+I[5, B, 2.0]",
                            "+I[5, Z, 0.0]",
                            "+I[6, B, 2.0]",
                            "+I[6, Z, 0.0]");
            assertThat(scenario.metrics().max(MAX_JOIN_FAN_OUT)).isEqualTo(3);
            assertThat((Double) scenario.metrics().value(0, AVG_JOIN_FAN_OUT))
                    .isCloseTo(14.0 / 6, within(1e-9));
        }
    }

    /** The parallelism of the job vertices whose name contains a text, by vertex name. */
    private static Map<String, Integer> vertices(StreamingScenario scenario, String text)
            throws Exception {
        Map<String, Integer> vertices = scenario.vertexParallelism();
        vertices.keySet().removeIf(name -> !name.contains(text));
        return vertices;
    }
}
